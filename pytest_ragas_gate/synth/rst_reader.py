r"""reStructuredText read through docutils, with the directives and roles Sphinx sites use.

docutils parses the document (``pip install 'pytest-ragas-gate[rst]'``); without it,
:mod:`.documents` reads headings and paragraphs line by line. Sphinx's own roles
(``:class:`Response <requests.Response>```, ``:ref:`installed <install>```) read as their
text; its admonition-like directives (``versionadded``, ``deprecated``, ``seealso``) and
docutils' admonitions (``.. note::``) keep their text with the statement before them;
directives that hold no prose of the page (``toctree``, ``automodule``, ``literalinclude``,
``module``) and any directive docutils does not know are left out. Nothing is read from
other files (``include`` is off) and raw HTML is off.

>>> blocks = rst_blocks(
...     "Sessions\n========\n\nA :class:`Session <requests.Session>` keeps cookies.\n\n"
...     ".. note:: Unless it is closed first.\n\n.. toctree::\n\n   api\n"
... )
>>> [(block.heading, block.text) for block in blocks]
[(True, 'Sessions'), (False, 'A `Session` keeps cookies. Unless it is closed first.')]
"""

from __future__ import annotations

import re
from typing import Any

from .blocks import Block
from .prose import block_kind, join_lines

__all__ = ["available", "rst_blocks"]


def available() -> bool:
    """Whether docutils is installed (the ``rst`` extra)."""
    try:
        import docutils  # noqa: F401
    except ImportError:
        return False
    return True


#: Sphinx roles whose text is a name the reader sees (a class, an option, a file).
_NAMED_ROLES = (
    "class func meth attr mod data exc obj const envvar option program file command kbd "
    "samp term dfn abbr mailheader mimetype makevar regexp menuselection guilabel "
    "py:class py:func py:meth py:attr py:mod py:data py:exc py:obj js:func c:func"
).split()
#: Sphinx roles that link to another page: their text reads as prose.
_LINK_ROLES = "ref doc download numref keyword token pep rfc".split()
#: Directives that hold no prose of the page.
_SILENT = (
    "toctree module currentmodule automodule autoclass autofunction automethod autoattribute "
    "autodata autoexception autosummary literalinclude index highlight only tabularcolumns "
    "sectionauthor moduleauthor codeauthor py:module py:currentmodule include raw"
).split()
_ASIDES = "versionadded versionchanged deprecated seealso".split()
_TARGET = re.compile(r"^(?P<text>.*?)\s*<[^<>]+>$", re.DOTALL)


def _role_text(text: str) -> str:
    match = _TARGET.match(text)
    shown = match.group("text") if match and match.group("text") else text
    return shown.lstrip("~!").strip()


def _register() -> None:
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    def named(name: str, rawtext: str, text: str, *_: Any, **__: Any) -> Any:
        shown = _role_text(text)
        if text.lstrip().startswith("~"):
            shown = shown.rsplit(".", 1)[-1]  # "~requests.Session" is shown "Session"
        return [nodes.literal(rawtext, shown)], []

    def linked(name: str, rawtext: str, text: str, *_: Any, **__: Any) -> Any:
        return [nodes.Text(_role_text(text))], []

    for role in _NAMED_ROLES:
        roles.register_local_role(role, named)
    for role in _LINK_ROLES:
        roles.register_local_role(role, linked)

    class Silent(Directive):
        has_content = True
        optional_arguments = 10
        final_argument_whitespace = True
        option_spec = None

        def run(self) -> list[Any]:
            return []

    class Aside(Directive):
        has_content = True
        optional_arguments = 2
        final_argument_whitespace = True
        option_spec = None

        def run(self) -> list[Any]:
            node = nodes.note()
            # "versionadded:: 2.1 Text" names a version first; "seealso:: Text" does not.
            words = (
                self.arguments[1:]
                if self.name.startswith(("version", "deprecated"))
                else (self.arguments)
            )
            if words:
                node += nodes.paragraph(" ".join(words), " ".join(words))
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    for name in _SILENT:
        directives.register_directive(name, Silent)
    for name in _ASIDES:
        directives.register_directive(name, Aside)


_REGISTERED: list[bool] = []


def rst_blocks(text: str) -> list[Block]:
    """The headings and paragraphs of a reStructuredText text, as :class:`.blocks.Block`."""
    from docutils import nodes
    from docutils.core import publish_doctree

    if not _REGISTERED:
        _register()
        _REGISTERED.append(True)
    tree = publish_doctree(
        text,
        settings_overrides={
            "report_level": 5,
            "halt_level": 5,
            "file_insertion_enabled": False,
            "raw_enabled": False,
            "warning_stream": False,
            "doctitle_xform": False,
            "sectsubtitle_xform": False,
        },
    )
    blocks: list[Block] = []
    aside_after_statement = False

    def paragraph_text(node: Any) -> str:
        parts: list[str] = []
        # docutils 0.18.1 renamed traverse() to findall(); the floor has only the first.
        walk = getattr(node, "findall", None) or node.traverse
        for child in walk(include_self=False, descend=True):
            if isinstance(child, nodes.literal):
                parts.append(f"`{child.astext()}`")
            elif isinstance(child, nodes.Text) and not isinstance(child.parent, nodes.literal):
                parts.append(str(child))
        return join_lines("".join(parts).split("\n"))

    def aside(node: Any) -> bool:
        return any(isinstance(parent, (nodes.Admonition, nodes.note)) for parent in _parents(node))

    def visit(node: Any, depth: int) -> None:
        nonlocal aside_after_statement
        for child in node.children:
            if isinstance(child, (nodes.system_message, nodes.comment, nodes.target)):
                continue
            if isinstance(child, nodes.title) and isinstance(child.parent, nodes.section):
                blocks.append(Block(" ".join(child.astext().split()), heading=True, level=depth))
                aside_after_statement = False
            elif isinstance(child, nodes.title):
                continue  # an admonition's own "Note" / "Warning"
            elif isinstance(child, (nodes.literal_block, nodes.doctest_block)):
                blocks.append(Block(child.astext(), skip="code"))
            elif isinstance(child, nodes.table):
                blocks.append(Block(child.astext(), skip="table"))
            elif isinstance(child, nodes.term):
                blocks.append(Block(" ".join(child.astext().split())))
            elif isinstance(child, nodes.paragraph):
                text = paragraph_text(child)
                if not text:
                    continue
                raw = str(child.rawsource or text)
                # A Markdown fence in a .rst README is code docutils reads as a paragraph.
                kind = "code" if raw.lstrip().startswith(("```", "~~~")) else None
                kind = kind or block_kind(
                    [re.sub(r"`[^`]*`", "code", line) for line in raw.split("\n")]
                )
                if aside(child) and aside_after_statement and kind is None and blocks:
                    last = blocks[-1]
                    blocks[-1] = Block(join_lines([last.text, text]), level=last.level)
                    aside_after_statement = False
                    continue
                blocks.append(Block(text, skip=kind))
                aside_after_statement = kind is None and not aside(child) and text.endswith(".")
            else:
                visit(child, depth + 1 if isinstance(child, nodes.section) else depth)

    visit(tree, 0)
    return blocks


def _parents(node: Any) -> list[Any]:
    found = []
    parent = node.parent
    while parent is not None:
        found.append(parent)
        parent = parent.parent
    return found
