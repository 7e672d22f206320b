r"""Reading the team's documents: Markdown, text, HTML, PDF and JSON Lines into plain blocks.

A document becomes a list of :class:`Block` s — headings and paragraphs in reading order —
which :mod:`.chunking` packs into chunks. Formats:

- ``.md`` / ``.markdown``, ``.rst`` and ``.txt``: ``#`` headings (Markdown), underlined
  headings (Markdown setext, reStructuredText), paragraphs separated by blank lines.
- ``.html`` / ``.htm``: text through the standard library's HTML parser (``html.parser``),
  block by block; scripts, styles, ``<nav>``, ``role="navigation"`` and Sphinx sidebars are
  dropped, ``<pre>`` is code and tables are tables.
- ``.pdf``: text per page through ``pypdf`` (``pip install 'pytest-ragas-gate[pdf]'``),
  without the running headers and footers repeated on every page.
- ``.jsonl``: one document per line, ``{"id": …, "text": …, "title": …?}``.

Non-prose blocks — licences, changelogs, code, tables, navigation, boilerplate (see
:mod:`.prose`) — are kept out of the chunks and counted per document. A document's title
is its real title (HTML ``<title>`` or ``<h1>``, its first heading, PDF metadata), its file
name only when it has none; its language is decided over the whole document.

A document's ``key`` is its path relative to the folder named on the command line (or its
file name, for a file named directly; ``file.jsonl#id`` for a JSON Lines document), so chunk
ids do not depend on the directory the command runs from.

>>> blocks = markdown_blocks("# Refunds\n\nAnnual plans are refunded within 14 days.\n")
>>> [(block.heading, block.text) for block in blocks]
[(True, 'Refunds'), (False, 'Annual plans are refunded within 14 days.')]
"""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ..exceptions import UsageError
from .blocks import Block
from .markdown_reader import FrontMatter, FrontMatterError, read_markdown
from .prose import block_kind, file_kind, is_chinese, join_lines, section_kind
from .rst_reader import available as rst_available
from .rst_reader import rst_blocks

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
    {".md", ".markdown", ".mdx", ".rst", ".txt", ".html", ".htm", ".pdf", ".jsonl"}
)

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BLANK_LINES = re.compile(r"\n\s*\n")


class DocumentError(UsageError):
    """A document that cannot be read: names the file (and line) and what was expected."""


@dataclass(frozen=True)
class Document:
    """One source document.

    Attributes:
        key: the stable name chunk ids and tags use (see the module docstring).
        title: the document's own title (see the module docstring).
        blocks: headings and paragraphs in reading order, non-prose ones marked.
        image_only: a PDF whose pages hold no text layer (scanned images).
    """

    key: str
    title: str
    blocks: tuple[Block, ...]
    image_only: bool = False
    #: The language the page declares (front matter ``lang``), None when it declares none.
    lang: str | None = None
    #: The page's own summary (front matter ``description``).
    description: str | None = None

    @property
    def text(self) -> str:
        """The document's prose as text."""
        return "\n\n".join(block.text for block in self.blocks if block.skip is None)

    @property
    def prose(self) -> tuple[Block, ...]:
        """The blocks questions are written from."""
        return tuple(block for block in self.blocks if block.skip is None)

    @property
    def skipped(self) -> dict[str, int]:
        """Non-prose blocks left out, counted by kind."""
        counts: dict[str, int] = {}
        for block in self.blocks:
            if block.skip is not None:
                counts[block.skip] = counts.get(block.skip, 0) + 1
        return counts

    @property
    def chinese(self) -> bool:
        """Whether the document is Chinese: as its front matter says, else by its prose."""
        if self.lang:
            return self.lang.lower().startswith("zh")
        return is_chinese(self.text)


_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+])\1{2,}\s*$")
_COMMENT = re.compile(r"^\s*(?:<!--.*-->|\.\.\s+\S.*::.*|\.\.\s*$|\.\. _[^:]+:.*|\.\. \|)")


def _classified(lines: list[str], *, keep_lines: bool = False) -> Block:
    kind = block_kind(lines)
    text = "\n".join(lines) if (keep_lines or kind is not None) else join_lines(lines)
    return Block(text, skip=kind)


def _text_blocks(text: str, *, atx: bool) -> list[Block]:
    """Headings and paragraphs of Markdown, reStructuredText or plain text."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    fence: list[str] | None = None
    underline_levels: list[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    if atx and lines and lines[0].strip() == "---":  # YAML front matter
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        if end:
            blocks.append(Block("\n".join(lines[1:end]), skip="boilerplate"))
            lines = lines[end + 1 :]

    def flush() -> None:
        if paragraph:
            blocks.append(_classified(list(paragraph)))
            paragraph.clear()

    def heading(title: str, level: int) -> None:
        flush()
        blocks.append(Block(" ".join(title.split()).strip(" #"), heading=True, level=level))

    index = 0
    while index < len(lines):
        line = lines[index]
        if fence is not None:
            fence.append(line)
            if _FENCE.match(line):
                blocks.append(Block("\n".join(fence), skip="code"))
                fence = None
            index += 1
            continue
        if _FENCE.match(line):
            flush()
            fence = [line]
            index += 1
            continue
        atx_heading = _HEADING.match(line) if atx else None
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if atx_heading:
            heading(atx_heading.group(2), len(atx_heading.group(1)))
        elif (
            not paragraph
            and line.strip()
            and _UNDERLINE.match(following)
            and not _UNDERLINE.match(line)
            and len(line.strip()) <= 100
        ):
            mark = _UNDERLINE.match(following).group(1)  # type: ignore[union-attr]
            if mark not in underline_levels:
                underline_levels.append(mark)
            heading(line, underline_levels.index(mark) + 1)
            index += 1
        elif _UNDERLINE.match(line) and _UNDERLINE.match(
            lines[index + 2] if index + 2 < len(lines) else ""
        ):
            # reStructuredText overline + title + underline.
            mark = "^" + line.strip()[0]
            if mark not in underline_levels:
                underline_levels.append(mark)
            heading(following, underline_levels.index(mark) + 1)
            index += 2
        elif _COMMENT.match(line) and not paragraph:
            blocks.append(Block(line.strip(), skip="boilerplate"))
        elif not line.strip():
            flush()
        else:
            paragraph.append(line.rstrip())
        index += 1
    if fence is not None:
        blocks.append(Block("\n".join(fence), skip="code"))
    flush()
    return _skip_sections(blocks)


def _skip_sections(blocks: list[Block]) -> list[Block]:
    """A section under a licence, changelog or contents heading is left out whole."""
    result: list[Block] = []
    skipping: tuple[str, int] | None = None
    for block in blocks:
        if block.heading:
            if skipping is not None and block.level <= skipping[1]:
                skipping = None
            kind = section_kind(block.text)
            if skipping is None and kind is not None:
                skipping = (kind, block.level or 1)
        if skipping is not None and block.skip is None and not block.heading:
            block = Block(block.text, block.heading, skipping[0], block.level)
        result.append(block)
    return result


def markdown_blocks(text: str) -> list[Block]:
    r"""Headings and paragraphs of a Markdown text; fenced code is a skipped ``code`` block.

    Read by :func:`.markdown_reader.read_markdown` (markdown-it-py); front matter is dropped.

    >>> [(b.heading, b.skip, b.text) for b in markdown_blocks("Plans\n=====\n\n```\nx = 1\n```")]
    [(True, None, 'Plans'), (False, 'code', '```\nx = 1\n```')]
    """
    try:
        return _skip_sections(read_markdown(text, html=_html_prose)[1])
    except FrontMatterError:
        return _skip_sections(read_markdown(_without_front_matter(text), html=_html_prose)[1])


def _without_front_matter(text: str) -> str:
    lines = text.split("\n")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "+++")), 0)
    return "\n".join(lines[end + 1 :])


def _html_prose(html: str) -> list[str]:
    """The prose paragraphs of an HTML block or component inside a Markdown page."""
    return [
        block.text
        for block in html_blocks(html)[1]
        if block.skip is None and not block.heading and len(block.text.split()) >= 4
    ]


def _markdown_document(text: str, shown: str) -> tuple[FrontMatter, list[Block]]:
    try:
        meta, blocks = read_markdown(text, html=_html_prose)
    except FrontMatterError as error:
        raise DocumentError(f"{shown}:{error.line}: {error}; fix it or remove it.") from None
    return meta, _skip_sections(blocks)


#: Page furniture by class or id that holds no prose even when it has few links.
_FURNITURE_CLASS = re.compile(r"\bfooter\b|skip-?link|cookie|\bsearch(?:box)?\b", re.IGNORECASE)
#: A block whose text is mostly link text is navigation (a menu, a table of contents).
_LINK_DENSITY = 0.6
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
_TITLE_SUFFIX = re.compile(
    r"\s+[—–|·-]\s+[^—–|·]*(?:documentation|docs|manual|wiki)[^—–|·]*$", re.I
)


class _BlockParser(HTMLParser):
    """Collects the text of block elements; page furniture is dropped and counted."""

    _BLOCKS = frozenset(
        "p div li td th dt dd blockquote figcaption caption section article br tr ul ol dl "
        "table main aside".split()
    )
    _HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
    _DROPPED = frozenset({"script", "style", "noscript", "template", "svg", "head"})
    _FURNITURE = frozenset({"nav", "footer", "header"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self._text: list[str] = []
        self._stack: list[tuple[str, str | None]] = []  # (tag, the kind it marks)
        self.title: str | None = None
        self._in_title = False
        self._title_text: list[str] = []
        self.h1: str | None = None
        self._links = 0  # open <a> elements
        self._link_chars = 0  # characters of link text in the block being collected

    def _mode(self) -> str | None:
        for _, kind in reversed(self._stack):
            if kind is not None:
                return kind
        return None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
            return
        if tag in _VOID:
            if tag == "br":
                self._text.append("\n")
            return
        values = dict(attrs)
        marks = " ".join(str(values.get(name) or "") for name in ("class", "id"))
        kind: str | None = None
        if tag in self._DROPPED:
            kind = "drop"
        elif (
            tag in self._FURNITURE
            or values.get("role") in ("navigation", "banner", "contentinfo", "search")
            or _FURNITURE_CLASS.search(marks)
        ):
            # A class name alone does not make navigation (a Sphinx ``toctree-wrapper`` may
            # hold the page's prose): lists of links are found by their link density.
            kind = "navigation"
        elif tag in ("pre", "code") and self._mode() is None and tag == "pre":
            kind = "code"
        elif tag == "table":
            kind = "table"
        if tag in self._HEADINGS or tag in self._BLOCKS or tag == "pre" or kind is not None:
            self._flush()
        if tag == "a":
            self._links += 1
        self._stack.append((tag, kind))

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            self.title = " ".join("".join(self._title_text).split()) or None
            return
        if not any(open_tag == tag for open_tag, _ in self._stack):
            return
        if tag == "a":
            self._links = max(0, self._links - 1)
        if tag in self._HEADINGS and self._mode() is None:
            text = " ".join("".join(self._text).split())
            self._text.clear()
            if text:
                level = int(tag[1])
                self.blocks.append(Block(text.rstrip("¶# "), heading=True, level=level))
                if level == 1 and self.h1 is None:
                    self.h1 = text.rstrip("¶# ")
        elif tag in self._BLOCKS or tag == "pre" or tag in self._FURNITURE:
            self._flush()
        while self._stack:
            open_tag, kind = self._stack.pop()
            if kind is not None and kind != "drop":
                self._flush(kind)
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title_text.append(data)
        elif self._mode() != "drop":
            self._text.append(data)
            if self._links:
                self._link_chars += len("".join(data.split()))

    def _flush(self, kind: str | None = None) -> None:
        raw = "".join(self._text)
        self._text.clear()
        linked, self._link_chars = self._link_chars, 0
        mode = kind or self._mode()
        if mode == "drop":
            return
        if mode == "code":
            text = raw.strip("\n")
            if text.strip():
                self.blocks.append(Block(text, skip="code"))
            return
        text = join_lines(raw.split("\n"))
        if not text:
            return
        if mode is not None:
            self.blocks.append(Block(text, skip=mode))
        elif linked >= _LINK_DENSITY * len("".join(text.split())):
            self.blocks.append(Block(text, skip="navigation"))
        else:
            self.blocks.append(_classified([text]))

    def close(self) -> None:
        super().close()
        self._flush()


def html_blocks(text: str) -> tuple[str | None, list[Block]]:
    """The page's title and its blocks; navigation, code and tables marked as skipped.

    >>> title, blocks = html_blocks(
    ...     "<title>Plans — Skyfile 2.1 documentation</title><script>x=1</script>"
    ...     "<div role='navigation'>Next | Previous</div><h2>Team</h2><p>2 TB <b>per</b> user.</p>"
    ... )
    >>> title
    'Plans'
    >>> [(b.heading, b.skip, b.text) for b in blocks]  # doctest: +NORMALIZE_WHITESPACE
    [(False, 'navigation', 'Next | Previous'), (True, None, 'Team'),
     (False, None, '2 TB per user.')]
    """
    parser = _BlockParser()
    parser.feed(text)
    parser.close()
    title = parser.title
    if title:
        title = _TITLE_SUFFIX.sub("", title).strip() or title
    return title or parser.h1, _skip_sections(parser.blocks)


def _pdf_blocks(path: Path, shown: str) -> tuple[str | None, list[Block], bool]:
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
        metadata = reader.metadata
        title = (metadata.title if metadata is not None else None) or None
    except Exception as error:  # pypdf raises many types for damaged files
        raise DocumentError(
            f"{shown}: not a readable PDF ({type(error).__name__}: {error})."
        ) from None
    if pages and not any(page.strip() for page in pages):
        return None, [], True
    return (str(title).strip() or None) if title else None, pdf_page_blocks(pages), False


_PAGE_NUMBER = re.compile(
    r"^\s*(?:page\s+)?[-–—(]?\s*\d+\s*(?:of\s+\d+)?[-–—)]?\s*$|^第\s*\d+\s*页", re.I
)


def _furniture_key(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()).lower())


def pdf_page_blocks(pages: Sequence[str]) -> list[Block]:
    r"""Paragraphs of PDF pages, without running headers, footers and page numbers.

    A line that opens or closes at least half of the pages (numbers aside) is a running
    header or footer.

    >>> pages = ["ACME Guide\nRefunds take a week.\n1", "ACME Guide\nSupport replies in a day.\n2"]
    >>> [block.text for block in pdf_page_blocks(pages)]
    ['Refunds take a week.', 'Support replies in a day.']
    """
    split = [[line for line in page.split("\n")] for page in pages]
    counts: dict[str, int] = {}

    def edge_lines(content: list[str]) -> list[str]:
        # The first and last line, and the next ones in when those are page numbers.
        first = 2 if content and _PAGE_NUMBER.match(content[0]) else 1
        last = 2 if content and _PAGE_NUMBER.match(content[-1]) else 1
        return content[:first] + content[-last:]

    for lines in split:
        content = [line for line in lines if line.strip()]
        edges = {_furniture_key(line) for line in edge_lines(content)}
        for key in edges:
            counts[key] = counts.get(key, 0) + 1
    repeated = {
        key for key, count in counts.items() if len(pages) >= 2 and count >= max(2, len(pages) / 2)
    }
    blocks: list[Block] = []
    for lines in split:
        content = [line for line in lines if line.strip()]
        first = 2 if content and _PAGE_NUMBER.match(content[0]) else 1
        last = 2 if content and _PAGE_NUMBER.match(content[-1]) else 1
        edge = set(range(min(first, len(content)))) | set(
            range(max(0, len(content) - last), len(content))
        )
        kept = [
            line
            for position, line in enumerate(content)
            if not (
                position in edge and (_furniture_key(line) in repeated or _PAGE_NUMBER.match(line))
            )
        ]
        paragraph: list[str] = []
        for line in kept:
            paragraph.append(line)
            # A line ending a sentence well short of the column ends a paragraph.
            if re.search(r"[.!?。！？:：]\s*$", line) and len(line.strip()) < 0.75 * max(
                (len(other.strip()) for other in kept), default=1
            ):
                blocks.append(_classified(paragraph))
                paragraph = []
        if paragraph:
            blocks.append(_classified(paragraph))
    return [
        Block(
            join_lines(block.text.split("\n")) if block.skip is None else block.text,
            skip=block.skip,
        )
        for block in blocks
    ]


_DECLARED_CHARSET = re.compile(rb"<meta[^>]{0,200}?charset=[\"']?([\w.:-]+)", re.IGNORECASE)


def _declared_encoding(raw: bytes) -> str | None:
    """An HTML page's own ``<meta charset>`` (ISO-8859-1 pages are common).

    None when the page declares none; UTF-8 when it declares one Python does not know.
    """
    match = _DECLARED_CHARSET.search(raw[:2048])
    if match is None:
        return None
    name = match.group(1).decode("ascii", "replace")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "utf-8"


def _read_text(path: Path, shown: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise DocumentError(f"{shown}: cannot be read ({error.strerror or error}).") from None
    encoding = _declared_encoding(raw) if path.suffix.lower() in (".html", ".htm") else "utf-8"
    try:
        text = _undeclared_html(raw) if encoding is None else raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise DocumentError(
            f"{shown}: not UTF-8 text (byte {error.start}); save the file as UTF-8."
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _undeclared_html(raw: bytes) -> str:
    """A page that declares no charset: UTF-8, else windows-1252 as browsers read it.

    The HTML standard's fallback for a legacy page without a declaration is windows-1252,
    whose five unassigned bytes map to the C1 controls of Latin-1.
    """
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="surrogateescape").translate(_CP1252_UNASSIGNED)


_CP1252_UNASSIGNED = {0xDC00 + byte: byte for byte in (0x81, 0x8D, 0x8F, 0x90, 0x9D)}


def stem_title(stem: str) -> str:
    """A file name as words, for a document with no title of its own.

    >>> stem_title("harbor_museum"), stem_title("shared-mime-info-spec"), stem_title("zlib")
    ('Harbor museum', 'Shared mime info spec', 'zlib')
    """
    text = " ".join(re.split(r"[_\-.]+|(?<=[a-z])(?=[A-Z])", stem)).strip() or stem
    if " " not in text:
        return text  # one word is a name as written ("zlib", "README")
    if text[1:].islower():
        return text[0].upper() + text[1:]
    if "_" not in stem:
        return text
    words = text.split(" ")
    if all(word[:1].isupper() and word[1:].islower() for word in words):
        # Title Case Of A File Name ("Harbor_Museum_Guide") reads as a sentence.
        return " ".join([words[0], *(word.lower() for word in words[1:])])
    # Otherwise the words are names as written ("apache2_README.Debian").
    return text[0].upper() + text[1:]


_MAN_HEADER = re.compile(r"^(\S+\(\d\w*\))\s.*\s\1\s*$")
_MAN_SECTION = re.compile(r"^[A-Z][A-Z0-9 ,/&-]{1,40}(?: \[[A-Z0-9 _-]{1,30}\])?$")


def man_page(text: str) -> tuple[str, str] | None:
    r"""A manual page rendered as text (``man 5 apt.conf | col -b``) as its title and Markdown.

    Its header and footer lines go, unindented capitalised lines are sections, a short
    indented line followed by deeper-indented text is a term being defined (an option), and
    the NAME section's line gives the title.

    >>> title, body = man_page("FOO(5)   File Formats   FOO(5)\n\nNAME\n       foo - the foo "
    ...     "file\n\nOPTIONS\n       MAX_SIZE\n              Largest file size.\n")
    >>> title, [line for line in body.split("\n") if line]  # doctest: +NORMALIZE_WHITESPACE
    ('foo: the foo file',
     ['## Name', 'foo - the foo file', '## Options', '### MAX_SIZE', 'Largest file size.'])
    """
    lines = text.replace("\r\n", "\n").expandtabs(8).split("\n")
    first = next((line for line in lines if line.strip()), "")
    if not _MAN_HEADER.match(first.strip()):
        return None
    header = _MAN_HEADER.match(first.strip()).group(1)  # type: ignore[union-attr]
    out: list[str] = []
    title = ""
    section = ""
    synopsis = False
    item_indent: int | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            out.append("")
            continue
        if stripped.endswith(header) and (stripped.startswith(header) or index > len(lines) - 4):
            continue  # the running header, or the footer with the date
        indent = len(line) - len(line.lstrip())
        before = out[-1].strip() if out else ""
        if (
            indent > 0
            and re.match(r"^(?:#|//|;)(?:\s|$)", stripped)
            and (
                not before
                or before.endswith((".", ":", "]", ")"))
                or "=" in before
                or re.match(r"^(?:#|//|;)(?:\s|$)", before) is not None
            )
        ):
            # "# UDP/IPv6 is the protocol to be used": a comment of an example's line, not a
            # Markdown heading nor a statement of the page; it stays code with its example.
            out.append("    " + stripped)
            continue
        if stripped.startswith("#") and before:
            # "Lines starting with / # are comments": wrapped prose, never a Markdown heading.
            out[-1] = f"{out[-1]} {stripped}"
            continue
        if indent == 0 and _MAN_SECTION.match(stripped):
            section, synopsis, item_indent = stripped, False, None
            out += ["", "## " + stripped.capitalize(), ""]
            continue
        following = next((other for other in lines[index + 1 :] if other.strip()), "")
        deeper = len(following) - len(following.lstrip()) > indent > 0
        if section == "NAME" and not title:
            title = re.sub(r"\s+\\?[-\u2010\u2011\u2212–—]\s+", ": ", stripped, count=1)
        if deeper and len(stripped.split()) <= 6 and not stripped.endswith((".", ":", ",")):
            # "firstaction / script / endscript": an item's synopsis over several lines is
            # one item, named by its first line, not an empty item and a second one.
            out += [stripped] if synopsis else ["", "### " + stripped]
            synopsis, item_indent = True, indent
            continue
        synopsis = synopsis and len(stripped.split()) <= 3 and not stripped.endswith(".")
        tagged = re.match(
            r"^([A-Z][\w:.-]*)\s{2,}(\S.*)$|^([a-z][\w.-]*)\s+([A-Z][a-z]\S*\s.*)$", stripped
        )
        if tagged and indent > 0 and len(following) - len(following.lstrip()) > indent:
            # "Port    Specifies the port …": a short option and its text on one line.
            # "filter The daemon has …": a lowercase item and its text too.
            out += [
                "",
                "### " + (tagged.group(1) or tagged.group(3)),
                tagged.group(2) or tagged.group(4),
            ]
            item_indent = indent
            continue
        keyed = re.match(r"^([A-Za-z][\w.-]*[A-Za-z0-9]=)\s+([A-Z\"].*)$", stripped)
        if keyed and indent > 0:
            # "use-frob=  Takes a boolean value …": a key and its text on one line, the text
            # wrapped at the key's own indent up to the blank line.
            out += ["", "### " + keyed.group(1), keyed.group(2)]
            item_indent = None
            continue
        if item_indent is not None and indent <= item_indent and section:
            # Back at the item's own indent: the section's text resumes, no item's any more.
            out += ["", "## " + section.capitalize(), ""]
            item_indent = None
        out.append(stripped)
    return title or header, "\n".join(out)


def clean_title(title: str) -> str:
    """A title without decoration: "= 欢 迎 阅 读 =" → "欢迎阅读", "== Usage ==" → "Usage"."""
    text = " ".join(title.split()).strip("=#*~-_ ")
    # Letters spaced out for emphasis ("V I M 教 程") close up again.
    text = re.sub(r"(?<!\S)(?:\S ){2,}\S(?!\S)", lambda m: m.group().replace(" ", ""), text)
    return text.strip() or title.strip()


#: Section names that open many READMEs and manuals: a question prefixed "In Introduction,"
#: names nothing, so such a first heading is no title and the file name is used instead.
_SECTION_NAMES = frozenset(
    {
        "introduction",
        "overview",
        "about",
        "readme",
        "contents",
        "table of contents",
        "summary",
        "getting started",
        "description",
        "frequently asked questions",
        "faq",
        "faqs",
        "notes",
        "简介",
        "介绍",
        "概述",
        "前言",
        "目录",
    }
)


def _first_heading(blocks: Sequence[Block]) -> str | None:
    heading = None
    for block in blocks:
        if block.skip is not None:
            continue
        if block.heading:
            heading = block.text
            break
        if len(block.text.split()) > 12:
            return None  # prose before the first heading: that heading names a section
    if not heading:
        return None
    title = clean_title(heading)
    return None if title.lower().rstrip(".:：") in _SECTION_NAMES else title


def _first_h1(blocks: Sequence[Block]) -> str | None:
    """The page's first level-1 heading, unless it only names a section ("Overview")."""
    for block in blocks:
        if block.heading and block.level == 1 and block.skip is None:
            title = clean_title(block.text)
            return None if title.lower().rstrip(".:：") in _SECTION_NAMES else title
    return None


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
                title=title or _first_heading(blocks) or stem_title(str(doc_id)),
                blocks=tuple(blocks),
            )
        )
    return documents


#: What a reader of one format gives: the title it found, the blocks, whether the file
#: is image-only (a scanned PDF) and the front matter.
_Read = tuple[str | None, list[Block], bool, FrontMatter]


def _read_markdown_file(path: Path, shown: str) -> _Read:
    meta, blocks = _markdown_document(_read_text(path, shown), shown)
    # Front matter, then the first H1, then the file name: a first "## Usage" names a
    # section, not the page.
    title = meta.title or _first_h1(blocks) or _page_slug_title(path.stem)
    return title, blocks, False, meta


def _page_slug_title(stem: str) -> str:
    """A docs site's page slug as a title: "timeouts" → "Timeouts" (its nav names it so).

    A short word or one with digits ("zlib", "httplib2") is a name, kept as written.
    """
    title = stem_title(stem)
    if title.isalpha() and title.islower() and len(title) >= 5:
        return title[:1].upper() + title[1:]
    return title


def _read_plain_file(path: Path, shown: str) -> _Read:
    if path.suffix.lower() == ".rst" and rst_available():
        return None, _skip_sections(rst_blocks(_read_text(path, shown))), False, FrontMatter()
    text = _read_text(path, shown)
    manual = man_page(text)
    title = None
    if manual is not None:
        title, text = manual
    blocks = _text_blocks(text, atx=manual is not None)
    first = next((i for i, block in enumerate(blocks) if block.skip is None), None)
    if first is not None and _title_line(blocks, first):
        blocks[first] = Block(blocks[first].text, heading=True, level=1)
    return title, blocks, False, FrontMatter()


def _title_line(blocks: Sequence[Block], first: int) -> bool:
    """A short first line without a full stop, before any heading, is the text's title."""
    line = blocks[first]
    return (
        not line.heading
        and not any(block.heading for block in blocks[:first])
        and len(line.text) <= 80
        and "\n" not in line.text
        and not line.text.endswith((".", "。", ":"))
    )


def _read_html_file(path: Path, shown: str) -> _Read:
    title, blocks = html_blocks(_read_text(path, shown))
    return title, blocks, False, FrontMatter()


def _read_pdf_file(path: Path, shown: str) -> _Read:
    title, blocks, image_only = _pdf_blocks(path, shown)
    return title, blocks, image_only, FrontMatter()


_READERS = {
    ".md": _read_markdown_file,
    ".markdown": _read_markdown_file,
    ".mdx": _read_markdown_file,
    ".rst": _read_plain_file,
    ".txt": _read_plain_file,
    ".html": _read_html_file,
    ".htm": _read_html_file,
    ".pdf": _read_pdf_file,
}


def _read_one(path: Path, key: str) -> list[Document]:
    shown = os.fspath(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_documents(path, key, shown)
    if suffix not in _READERS:
        raise DocumentError(
            f"{shown}: unsupported document type {suffix or '(none)'}; expected one of "
            + ", ".join(sorted(DOCUMENT_EXTENSIONS))
            + "."
        )
    title, blocks, image_only, meta = _READERS[suffix](path, shown)
    if not blocks and not image_only:
        return []
    whole = file_kind(path.name)
    if whole is not None:
        # A licence, a change history or a code file gives no case, whatever its sentences.
        blocks = [
            block if block.skip else Block(block.text, block.heading, whole, block.level)
            for block in blocks
        ]
    return [
        Document(
            key=key,
            title=title or _first_heading(blocks) or stem_title(path.stem),
            blocks=tuple(blocks),
            image_only=image_only,
            lang=meta.lang,
            description=meta.description,
        )
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
