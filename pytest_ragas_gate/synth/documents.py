r"""Reading the team's documents: Markdown, text, HTML, PDF and JSON Lines into plain blocks.

A document becomes a list of :class:`Block` s — headings and paragraphs in reading order —
which :mod:`.chunking` packs into chunks. Formats:

- ``.md`` / ``.markdown``: ``#`` headings, paragraphs separated by blank lines; fenced code
  is kept as one paragraph.
- ``.txt``: paragraphs separated by blank lines.
- ``.html`` / ``.htm``: text through the standard library's HTML parser (``html.parser``),
  block by block (headings, paragraphs, list items, table cells …); scripts, styles and
  navigation are left out.
- ``.pdf``: text per page through ``pypdf`` (``pip install 'pytest-ragas-gate[pdf]'``).
- ``.jsonl``: one document per line, ``{"id": …, "text": …, "title": …?}``.

A document's ``key`` is its path relative to the folder named on the command line (or its
file name, for a file named directly; ``file.jsonl#id`` for a JSON Lines document), so chunk
ids do not depend on the directory the command runs from.

>>> blocks = markdown_blocks("# Refunds\n\nAnnual plans are refunded within 14 days.\n")
>>> [(block.heading, block.text) for block in blocks]
[(True, 'Refunds'), (False, 'Annual plans are refunded within 14 days.')]
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ..exceptions import UsageError

__all__ = [
    "DOCUMENT_EXTENSIONS",
    "Block",
    "Document",
    "DocumentError",
    "html_blocks",
    "markdown_blocks",
    "read_documents",
]

DOCUMENT_EXTENSIONS: frozenset[str] = frozenset(
    {".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".jsonl"}
)

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BLANK_LINES = re.compile(r"\n\s*\n")


class DocumentError(UsageError):
    """A document that cannot be read: names the file (and line) and what was expected."""


@dataclass(frozen=True)
class Block:
    """A heading or a paragraph of a document, in reading order."""

    text: str
    heading: bool = False


@dataclass(frozen=True)
class Document:
    """One source document.

    Attributes:
        key: the stable name chunk ids and tags use (see the module docstring).
        title: the first heading, the ``title`` of a JSON Lines document, or the file stem.
        blocks: headings and paragraphs in reading order.
    """

    key: str
    title: str
    blocks: tuple[Block, ...]

    @property
    def text(self) -> str:
        """The whole document as text."""
        return "\n\n".join(block.text for block in self.blocks)


def _paragraphs(text: str) -> list[Block]:
    return [
        Block(" ".join(part.split()))
        for part in _BLANK_LINES.split(text.replace("\r\n", "\n"))
        if part.strip()
    ]


def markdown_blocks(text: str) -> list[Block]:
    """Headings and paragraphs of a Markdown text; a fenced code block stays whole."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    in_fence = False

    def flush() -> None:
        if paragraph:
            joined = "\n".join(paragraph) if in_fence else " ".join(" ".join(paragraph).split())
            if joined.strip():
                blocks.append(Block(joined))
            paragraph.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        if _FENCE.match(line):
            if in_fence:
                paragraph.append(line)
                flush()
                in_fence = False
            else:
                flush()
                in_fence = True
                paragraph.append(line)
            continue
        if in_fence:
            paragraph.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            blocks.append(Block(heading.group(2).strip(), heading=True))
        elif not line.strip():
            flush()
        else:
            paragraph.append(line.strip())
    flush()
    return blocks


class _BlockParser(HTMLParser):
    """Collects the text of block elements; skips scripts, styles and page furniture."""

    _BLOCKS = frozenset(
        "p div li td th dt dd pre blockquote figcaption caption section article br tr".split()
    )
    _HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "title"})
    _SKIPPED = frozenset({"script", "style", "nav", "footer", "noscript", "template", "svg"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self._text: list[str] = []
        self._skipping = 0
        self._heading_depth = 0
        self.title: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIPPED:
            self._skipping += 1
        elif tag in self._HEADINGS:
            self._flush()
            self._heading_depth += 1
        elif tag in self._BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif tag in self._HEADINGS:
            text = " ".join("".join(self._text).split())
            self._text.clear()
            self._heading_depth = max(0, self._heading_depth - 1)
            if tag == "title":
                self.title = text or None
            elif text:
                self.blocks.append(Block(text, heading=True))
        elif tag in self._BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._text.append(data)

    def _flush(self) -> None:
        if self._heading_depth:
            return
        text = " ".join("".join(self._text).split())
        self._text.clear()
        if text:
            self.blocks.append(Block(text))

    def close(self) -> None:
        super().close()
        self._flush()


def html_blocks(text: str) -> tuple[str | None, list[Block]]:
    """The ``<title>`` and the headings and paragraphs of an HTML page.

    >>> title, blocks = html_blocks(
    ...     "<title>Plans</title><script>x=1</script><h2>Team</h2><p>2 TB <b>per</b> user.</p>"
    ... )
    >>> title, [(block.heading, block.text) for block in blocks]
    ('Plans', [(True, 'Team'), (False, '2 TB per user.')])
    """
    parser = _BlockParser()
    parser.feed(text)
    parser.close()
    return parser.title, parser.blocks


def _pdf_blocks(path: Path, shown: str) -> list[Block]:
    try:
        from pypdf import PdfReader
    except ImportError:
        raise DocumentError(
            f"{shown}: reading PDF needs the pdf extra: pip install 'pytest-ragas-gate[pdf]' "
            "(or leave the PDF out)."
        ) from None
    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as error:  # pypdf raises many types for damaged files
        raise DocumentError(
            f"{shown}: not a readable PDF ({type(error).__name__}: {error})."
        ) from None
    blocks: list[Block] = []
    for page in pages:
        # PDF text has a line break at every printed line: a paragraph ends where a line
        # ends a sentence and the next one is blank or starts a new paragraph.
        blocks.extend(_paragraphs(page))
    return blocks


def _read_text(path: Path, shown: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise DocumentError(
            f"{shown}: not UTF-8 text (byte {error.start}); save the file as UTF-8."
        ) from None
    except OSError as error:
        raise DocumentError(f"{shown}: cannot be read ({error.strerror or error}).") from None


def _first_heading(blocks: Sequence[Block]) -> str | None:
    return next((block.text for block in blocks if block.heading), None)


def _jsonl_documents(path: Path, key: str, shown: str) -> list[Document]:
    documents: list[Document] = []
    for number, line in enumerate(_read_text(path, shown).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise DocumentError(f"{shown}:{number}: not a JSON object ({error.msg}).") from None
        if not isinstance(row, dict):
            raise DocumentError(
                f"{shown}:{number}: expected an object {{id, text, title?}}, "
                f"got {type(row).__name__}."
            )
        doc_id, text, title = row.get("id"), row.get("text"), row.get("title")
        if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool) or not str(doc_id):
            raise DocumentError(
                f"{shown}:{number}: field 'id': expected a non-empty string or number."
            )
        if not isinstance(text, str) or not text.strip():
            raise DocumentError(f"{shown}:{number}: field 'text': expected a non-empty string.")
        if title is not None and not isinstance(title, str):
            raise DocumentError(f"{shown}:{number}: field 'title': expected a string.")
        blocks = markdown_blocks(text)
        documents.append(
            Document(
                key=f"{key}#{doc_id}",
                title=title or _first_heading(blocks) or str(doc_id),
                blocks=tuple(blocks),
            )
        )
    return documents


def _read_one(path: Path, key: str) -> list[Document]:
    shown = os.fspath(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_documents(path, key, shown)
    title: str | None = None
    if suffix in (".md", ".markdown"):
        blocks = markdown_blocks(_read_text(path, shown))
    elif suffix == ".txt":
        blocks = _paragraphs(_read_text(path, shown))
        # A short first line without a full stop is the text's title.
        if blocks and len(blocks[0].text) <= 80 and not blocks[0].text.endswith((".", "。")):
            blocks[0] = Block(blocks[0].text, heading=True)
    elif suffix in (".html", ".htm"):
        title, blocks = html_blocks(_read_text(path, shown))
    elif suffix == ".pdf":
        blocks = _pdf_blocks(path, shown)
    else:
        raise DocumentError(
            f"{shown}: unsupported document type {suffix or '(none)'}; expected one of "
            + ", ".join(sorted(DOCUMENT_EXTENSIONS))
            + "."
        )
    if not blocks:
        return []
    return [
        Document(key=key, title=title or _first_heading(blocks) or path.stem, blocks=tuple(blocks))
    ]


def _files(paths: Iterable[str]) -> list[tuple[Path, str]]:
    """Every document file under ``paths`` with its key, in a stable order."""
    found: list[tuple[Path, str]] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for candidate in sorted(path.rglob("*")):
                if candidate.is_file() and candidate.suffix.lower() in DOCUMENT_EXTENSIONS:
                    relative = candidate.relative_to(path).as_posix()
                    if not any(part.startswith(".") for part in Path(relative).parts):
                        found.append((candidate, relative))
        elif path.is_file():
            found.append((path, path.name))
        else:
            raise DocumentError(f"{given}: no such file or folder.")
    return found


def read_documents(paths: Sequence[str]) -> list[Document]:
    """Read every document under ``paths`` (files and folders), in a stable order.

    Raises:
        DocumentError: a path is missing, a file cannot be read, or two documents would
            get the same key (name them from a common folder instead).
    """
    documents: list[Document] = []
    origin: dict[str, Path] = {}
    for path, key in _files(paths):
        if path.suffix.lower() not in DOCUMENT_EXTENSIONS:
            raise DocumentError(
                f"{path}: unsupported document type {path.suffix or '(none)'}; expected one of "
                + ", ".join(sorted(DOCUMENT_EXTENSIONS))
                + "."
            )
        for document in _read_one(path, key):
            if document.key in origin:
                raise DocumentError(
                    f"{path} and {origin[document.key]} are both named {document.key!r}; "
                    "pass their common folder instead, so each keeps a distinct name."
                )
            origin[document.key] = path
            documents.append(document)
    return documents
