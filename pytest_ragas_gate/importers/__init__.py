"""Golden sets from other tools' files: ``rag-gate import`` (see :mod:`.command`)."""

from .command import FORMATS, register_command

__all__ = ["FORMATS", "register_command"]
