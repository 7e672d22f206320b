r"""Markdown as docs sites write it, read through markdown-it-py and its maintained plugins.

The flavours teams use are parsed, not guessed at line by line:

- front matter: YAML between ``---`` lines (``mdit_py_plugins.front_matter``, read with
  PyYAML) and Hugo's TOML between ``+++`` lines (``tomllib``); its ``title``,
  ``description`` and ``lang`` are the page's own;
- admonitions: MkDocs ``!!! note`` (``mdit_py_plugins.admon``), Docusaurus and VitePress
  ``:::tip`` (``mdit_py_plugins.container``), GitHub alerts ``> [!NOTE]`` and MyST
  ``{note}`` fences; their text stays with the statement before them, so a condition an
  admonition carries ("unless it is sandboxed") is in the same chunk as what it qualifies;
- headings without their anchors (``## Install {#install}``) or badges;
- definition lists (``mdit_py_plugins.deflist``): the term on its own line, then its text;
- tables and code are skipped blocks; raw HTML and MDX/JSX components are dropped, their
  text kept where it is prose; Hugo shortcodes (``{{< note >}}``) and MDX ``import`` lines go.

>>> meta, blocks = read_markdown(
...     "---\ntitle: Backups\n---\n# Overview {#overview}\n\nSnapshots run nightly.\n\n"
...     "::: warning Careful\nUnless the host is sandboxed.\n:::\n"
... )
>>> meta.title
'Backups'
>>> [(block.heading, block.text) for block in blocks]  # doctest: +NORMALIZE_WHITESPACE
[(True, 'Overview'), (False, 'Snapshots run nightly. Unless the host is sandboxed.')]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from .blocks import Block
from .prose import block_kind, join_lines

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["FrontMatter", "FrontMatterError", "read_markdown"]


class FrontMatterError(ValueError):
    """Front matter that is not YAML or TOML: ``line`` is 1-based in the file."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class FrontMatter:
    """What a page says of itself in its front matter."""

    title: str | None = None
    description: str | None = None
    lang: str | None = None


@dataclass(frozen=True)
class _Block:
    text: str
    heading: bool = False
    skip: str | None = None
    level: int = 0
    #: Text of an admonition, a callout or a quote: it qualifies the statement before it.
    aside: bool = False


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    md.use(front_matter_plugin).use(deflist_plugin).use(admon_plugin)
    # `[text](url){target="_self"}`, `![alt](img){width=50%}`: attributes are no prose.
    md.use(attrs_plugin)
    # One container rule for every name (tip, warning, details, info, danger …): a site
    # may define its own, and each is read the same way.
    md.use(container_plugin, name="any", validate=lambda params, *_: bool(params.strip()))
    return md


#: Lines that hold no prose of the page: Hugo shortcodes, MDX imports and exports,
#: VitePress's table of contents and code imports.
_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}", re.DOTALL)
_MDX_LINE = re.compile(
    r"^(?:import\s+(?:[\w*{}\s,]+\s+from\s+)?['\"][^'\"]+['\"];?|export\s+(?:default\s+)?"
    r"(?:const|let|function|class)\b.*|\[\[toc\]\]|<<<\s+\S.*|@\[code[^\]]*\]\(.*\))\s*$",
    re.MULTILINE,
)
#: Hugo's callout shortcodes open and close an admonition like ``:::note`` does.
_CALLOUT = re.compile(
    r"^[ \t]*\{\{[<%]\s*(?P<close>/)?\s*(?P<name>note|tip|warning|caution|important|admonition"
    r"|callout|alert|hint|info|danger)\b[^\n]*?[%>]\}\}[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
_TOML_FRONT = re.compile(r"\A\+\+\+[ \t]*\n(.*?)\n\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)
_HEADING_ATTRS = re.compile(r"\s*\{\s*(?:[#.][\w:.-]+\s*|[\w-]+=\S+\s*)+\}\s*$")
_ALERT = re.compile(r"^\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*\n?", re.IGNORECASE)
_MYST_ADMONITION = re.compile(
    r"^\{(?:note|tip|hint|important|warning|caution|attention|danger|error|seealso|admonition"
    r"|versionadded|versionchanged|deprecated)\}",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"`[^`]*`")


def _front_matter(source: str) -> tuple[dict[str, Any], str, int]:
    """TOML front matter and the text after it, with the lines it took (YAML is a token)."""
    match = _TOML_FRONT.match(source)
    if match is None:
        return {}, source, 0
    try:
        data = tomllib.loads(match.group(1))
    except tomllib.TOMLDecodeError as error:
        raise FrontMatterError(2, f"front matter is not TOML ({error})") from None
    taken = match.group(0).count("\n")
    return data, "\n" * taken + source[match.end() :], taken


def _yaml(content: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = 2 + (mark.line if mark is not None else 0)
        problem = getattr(error, "problem", None) or "not YAML"
        raise FrontMatterError(line, f"front matter is not YAML ({problem})") from None
    return data if isinstance(data, dict) else {}


def _meta(data: dict[str, Any]) -> FrontMatter:
    def text(key: str) -> str | None:
        value = data.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return " ".join(str(value).split()) or None
        return None

    return FrontMatter(text("title"), text("description"), text("lang") or text("language"))


def _inline_text(token: Token) -> list[str]:
    """An inline token's text as lines: code spans keep their backticks, links their text."""
    out: list[str] = [""]
    for child in token.children or ():
        if child.type in ("text", "text_special"):
            out[-1] += child.content
        elif child.type == "code_inline":
            out[-1] += f"`{child.content}`"
        elif child.type in ("softbreak", "hardbreak"):
            out.append("")
    return [_SHORTCODE.sub("", line) for line in out]


class _Walker:
    """Turns the token stream into blocks; containers are tracked by nesting depth."""

    def __init__(
        self,
        classify: Callable[[list[str]], str | None],
        html: Callable[[str], list[str]] | None = None,
    ) -> None:
        self.classify = classify
        self.html = html
        self.blocks: list[_Block] = []
        self.meta: dict[str, Any] = {}
        self._asides = 0  # open admonitions, containers and quotes
        self._alert_pending = False
        self._table: list[str] | None = None
        self._heading: int | None = None
        self._term = False

    def walk(self, tokens: Sequence[Token]) -> None:
        handlers: dict[str, Callable[[Token], None]] = {
            "front_matter": self._front_matter,
            "heading_open": self._heading_open,
            "heading_close": self._heading_close,
            "inline": self._inline,
            "fence": self._fence,
            "code_block": self._code,
            "html_block": self._html,
            "table_open": self._table_open,
            "table_close": self._table_close,
            "dt_open": self._dt_open,
            "dt_close": self._dt_close,
            "blockquote_open": self._aside_open,
            "blockquote_close": self._aside_close,
            "admonition_open": self._aside_open,
            "admonition_close": self._aside_close,
            "container_any_open": self._aside_open,
            "container_any_close": self._aside_close,
        }
        skipping_title = 0
        for token in tokens:
            if token.type == "admonition_title_open":
                skipping_title += 1
            elif token.type == "admonition_title_close":
                skipping_title -= 1
            elif not skipping_title and token.type in handlers:
                handlers[token.type](token)

    def _front_matter(self, token: Token) -> None:
        self.meta = _yaml(token.content)

    def _heading_open(self, token: Token) -> None:
        self._heading = int(token.tag[1])

    def _heading_close(self, _token: Token) -> None:
        self._heading = None

    def _aside_open(self, token: Token) -> None:
        self._asides += 1
        self._alert_pending = token.type == "blockquote_open"

    def _aside_close(self, _token: Token) -> None:
        self._asides = max(0, self._asides - 1)

    def _table_open(self, _token: Token) -> None:
        self._table = []

    def _table_close(self, _token: Token) -> None:
        if self._table:
            self.blocks.append(_Block("\n".join(self._table), skip="table"))
        self._table = None

    def _dt_open(self, _token: Token) -> None:
        self._term = True

    def _dt_close(self, _token: Token) -> None:
        self._term = False

    def _inline(self, token: Token) -> None:
        lines = _inline_text(token)
        if self._table is not None:
            self._table.append(" ".join(lines))
            return
        if self._heading is not None:
            text = _HEADING_ATTRS.sub("", " ".join(" ".join(lines).split()))
            if text:
                self.blocks.append(_Block(text.strip(" #"), heading=True, level=self._heading))
            return
        if self._alert_pending:
            lines[0] = _ALERT.sub("", lines[0])
            self._alert_pending = False
        lines = [line for line in lines if line.strip()]
        if not lines:
            return
        if self._term:
            self.blocks.append(_Block(" ".join(" ".join(lines).split())))
            return
        # Code spans hold `{{ .Title }}` and `a = b`: the classifier reads the prose.
        kind = self.classify([_CODE_SPAN.sub("code", line) for line in lines])
        self.blocks.append(_Block("\n".join(lines), skip=kind, aside=self._asides > 0))

    def _fence(self, token: Token) -> None:
        if _MYST_ADMONITION.match(token.info.strip()):
            inner = _Walker(self.classify, self.html)
            inner.walk(_parser().parse(token.content))
            self.blocks += [
                _Block(block.text, block.heading, block.skip, block.level, True)
                for block in inner.blocks
            ]
            return
        self._code(token)

    def _code(self, token: Token) -> None:
        text = (token.markup + token.info + "\n" + token.content + token.markup).strip("\n")
        self.blocks.append(_Block(text, skip="code"))

    def _html(self, token: Token) -> None:
        # A component (<Tabs>, <TabItem>, <div class="tip">) may wrap prose; scripts and
        # styles go with the HTML reader's own rules (``html``, given by the caller).
        for text in self.html(token.content) if self.html is not None else ():
            self.blocks.append(_Block(text, aside=self._asides > 0))


def _attached(blocks: list[_Block]) -> list[_Block]:
    """Each admonition's first paragraph joined to the statement it follows."""
    result: list[_Block] = []
    follows_statement = False
    for block in blocks:
        # "Unless sandboxed.": a short qualifier is no stray label when it ends a sentence.
        short = block.skip == "boilerplate" and block.text.rstrip().endswith((".", "。"))
        if block.aside and (block.skip is None or short) and follows_statement:
            previous = result[-1]
            joined = previous.text + "\n" + block.text  # join_lines spaces it as its script
            result[-1] = _Block(joined, previous.heading, previous.skip, previous.level)
            follows_statement = False  # later paragraphs of the admonition stand alone
            continue
        result.append(block)
        follows_statement = _statement(block)
    return result


def _statement(block: _Block) -> bool:
    """Whether ``block`` is a sentence an admonition after it can qualify."""
    if block.heading or block.skip is not None or block.aside:
        return False
    text = block.text.rstrip()
    return text.endswith((".", "。", "!", "！")) and len(text) >= 20


def read_markdown(
    source: str,
    classify: Callable[[list[str]], str | None] | None = None,
    html: Callable[[str], list[str]] | None = None,
) -> tuple[FrontMatter, list[Block]]:
    """The page's front matter and its blocks (:class:`.blocks.Block`), in reading order.

    ``classify`` tells a paragraph's non-prose kind from its lines (:func:`.prose.block_kind`);
    ``html`` gives the prose paragraphs of an HTML block (none are kept without it).

    Raises:
        FrontMatterError: the front matter is neither YAML nor TOML.
    """
    toml, text, _ = _front_matter(source.replace("\r\n", "\n"))
    text = _CALLOUT.sub(_callout, text)
    text = _MDX_LINE.sub("", _SHORTCODE.sub(_shortcode_line, text))
    walker = _Walker(classify or block_kind, html)
    walker.walk(_parser().parse(text))
    meta = _meta({**toml, **walker.meta})
    blocks = [
        Block(
            join_lines(block.text.split("\n")) if block.skip is None else block.text,
            heading=block.heading,
            skip=block.skip,
            level=block.level,
        )
        for block in _attached(walker.blocks)
    ]
    return meta, blocks


def _callout(match: re.Match[str]) -> str:
    return "\n:::\n" if match.group("close") else f"\n::: {match.group('name').lower()}\n"


def _shortcode_line(match: re.Match[str]) -> str:
    # A shortcode's own line goes whole, so an opening and a closing one leave no blank
    # paragraph; the text between them is the page's prose.
    return "" if "\n" not in match.group() else "\n" * match.group().count("\n")
