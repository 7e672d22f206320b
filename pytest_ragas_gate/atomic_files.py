"""Files replaced whole: a reader sees the old content or the new, never half of it.

Every file the package writes for someone else to read (reports, labels, golden sets
from ``synth``, saved batch ids, the xdist exchange) goes through here.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["write_lines_atomic", "write_text_atomic"]


def write_text_atomic(
    path: str | os.PathLike[str],
    text: str,
    *,
    durable: bool = True,
    temporary_prefix: str | None = None,
) -> None:
    """Write ``text`` as UTF-8 so readers see the old file or the new one, never half.

    The text goes to a temporary file in the destination's directory (same filesystem,
    so the final :func:`os.replace` is atomic); missing parent directories are created.

    Args:
        path: The destination file.
        text: The whole content.
        durable: Flush the content to disk before the file is replaced; a file that
            lives only as long as the run (progress, the xdist exchange) skips it.
        temporary_prefix: The temporary file's name prefix (default ``.<name>.``), for a
            directory whose readers pick files by a pattern the default would match.
    """
    write_lines_atomic(path, [text], durable=durable, temporary_prefix=temporary_prefix)


def _umask() -> int:
    """The process's umask (reading it means setting it, so it is set straight back)."""
    current = os.umask(0o022)
    os.umask(current)
    return current


def write_lines_atomic(
    path: str | os.PathLike[str],
    chunks: Iterable[str],
    *,
    durable: bool = True,
    temporary_prefix: str | None = None,
) -> None:
    """Write ``chunks`` one after the other, atomically, as :func:`write_text_atomic` does.

    Args:
        path: The destination file.
        chunks: The content in pieces, written as they come.
        durable: As for :func:`write_text_atomic`.
        temporary_prefix: As for :func:`write_text_atomic`.
    """
    destination = Path(path)
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(
        "w",
        encoding="utf-8",
        newline="\n",
        dir=destination.parent,
        prefix=f".{destination.name}." if temporary_prefix is None else temporary_prefix,
        suffix=".tmp",
        delete=False,
    )
    try:
        with handle:
            handle.writelines(chunks)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        # The temporary file is private (0600); what is written here is an ordinary file
        # that CI uploads and colleagues open, so it gets the mode any new file would.
        os.chmod(handle.name, 0o666 & ~_umask())
        os.replace(handle.name, destination)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
