"""``python -m pytest_ragas_gate.cli``: the ``rag-gate`` command."""

from __future__ import annotations

import sys

from . import main

sys.exit(main())
