"""``rag-gate keygen``: a new Ed25519 key pair for signing the judge cache.

It prints the two lines a team pastes into its setup: the private key as a CI secret
(``RAG_GATE_SIGNING_KEY=…``) and the public key for ``rag_gate.yaml`` or
``[tool.rag_gate.cache]`` (``public_key: …`` under ``cache:``). Nothing is written to
disk: the private key exists only in this command's output until it is stored as a secret.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..exceptions import UsageError
from ..judges.cache_signing import SIGNING_KEY_ENV, fingerprint, generate_key_pair

__all__ = ["register_command"]

EXIT_OK = 0
EXIT_USAGE = 4


def register_command(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``keygen`` to the ``rag-gate`` parser, with its ``handler``."""
    keygen = commands.add_parser(
        "keygen",
        help="an Ed25519 key pair for signing the judge cache",
        description=f"Print a new Ed25519 key pair: {SIGNING_KEY_ENV}=<private key> for a CI "
        "secret (runs with it sign every judge-cache entry they write) and "
        "cache: {public_key: <public key>} for rag_gate.yaml or [tool.rag_gate.cache] (every run "
        "then replays only entries signed by that key). Nothing is written to disk.",
    )
    keygen.set_defaults(handler=_keygen)


def _keygen(arguments: argparse.Namespace) -> int:
    try:
        private_key, public_key = generate_key_pair()
    except UsageError as error:
        print(f"rag-gate keygen: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{SIGNING_KEY_ENV}={private_key}")
    print(f"cache: {{public_key: {public_key}}}")
    # On stderr, so that `rag-gate keygen > keys` keeps exactly the two lines above.
    print(
        f"rag-gate keygen: store the first line as the CI secret {SIGNING_KEY_ENV} and "
        "commit the second to rag_gate.yaml (public_key under cache:, or "
        'public_key = "…" under [tool.rag_gate.cache]); key fingerprint '
        f"{fingerprint(public_key)}.",
        file=sys.stderr,
    )
    return EXIT_OK
