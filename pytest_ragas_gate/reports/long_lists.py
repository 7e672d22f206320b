"""Long runs stay readable: errored cases grouped by cause, and a body cut between rows.

At 2,000 cases with the judge down for most of them, a list of every errored case (each
with the same error) buries the few cases that fail on quality, and a body cut at a
character count ends in the middle of a row. The Markdown summary and the pull-request
comment therefore list the cases that fail on quality first, worst first, then the
errored cases as one row per cause (the error text with its case-specific ids and
numbers taken out) with a count and three examples; a body longer than its limit loses
whole rows from its end, never a failing case's, and says how many it left out and where
the full list is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..gate.case_verdicts import CaseVerdict

__all__ = [
    "ErrorGroup",
    "cut_between_rows",
    "error_cause",
    "error_groups",
    "error_table",
    "is_error_row",
]

#: Examples a cause's row names; the HTML and JSON reports list every case.
EXAMPLES = 3

# Ids and numbers that differ from case to case while the cause is the same: UUIDs and
# long hex ids, then any quoted value, then the digits of request ids, ports and counts.
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{12,}\b", re.I)
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\d+")


def error_cause(case: CaseVerdict) -> str:
    """The case's error with what is particular to the case taken out: its cause.

    >>> from pytest_ragas_gate.gate.case_verdicts import CaseVerdict
    >>> case = CaseVerdict(id="refund-7", key="g.jsonl::refund-7", source="g.jsonl:7",
    ...     status="errored", error="case refund-7: request 4711 to 127.0.0.1:8080 refused",
    ...     error_metric="faithfulness")
    >>> error_cause(case)
    'case …: request # to #.#.#.#:# refused'
    """
    text = case.error or ""
    for particular in sorted({case.id, case.key}, key=len, reverse=True):
        if particular:
            text = text.replace(particular, "…")
    text = _UUID.sub("…", text)
    text = _HEX.sub("…", text)
    text = _QUOTED.sub("'…'", text)
    return " ".join(_NUMBER.sub("#", text).split())


@dataclass(frozen=True)
class ErrorGroup:
    """The errored cases of one cause: how many, and the first few, in the gate's order."""

    cause: str
    cases: tuple[CaseVerdict, ...]

    @property
    def count(self) -> int:
        """How many cases errored of this cause."""
        return len(self.cases)

    @property
    def examples(self) -> tuple[CaseVerdict, ...]:
        """The first :data:`EXAMPLES` cases of the cause."""
        return self.cases[:EXAMPLES]

    @property
    def message(self) -> str:
        """The first case's own error line, as the judge or pipeline said it."""
        first = self.cases[0]
        prefix = "" if first.error_metric is None else f"{first.error_metric} error: "
        return prefix + (first.error or "")


def is_error_row(case: CaseVerdict) -> bool:
    """Whether the case is listed for its error alone: errored, and no threshold missed."""
    return case.error is not None and not case.misses and not case.own_misses


def error_groups(cases: Sequence[CaseVerdict]) -> list[ErrorGroup]:
    """The cases listed for their error, one group per cause, the most common cause first.

    Causes with as many cases keep the order in which the run met them first.
    """
    grouped: dict[str, list[CaseVerdict]] = {}
    for case in cases:
        if is_error_row(case):
            grouped.setdefault(error_cause(case), []).append(case)
    groups = [ErrorGroup(cause, tuple(members)) for cause, members in grouped.items()]
    return sorted(groups, key=lambda group: -group.count)


def error_table(
    groups: Sequence[ErrorGroup], *, case: Callable[[str], str], text: Callable[[str], str]
) -> list[str]:
    """``### Errored cases (N), by cause`` and one row per cause, or nothing.

    Args:
        groups: The causes, as :func:`error_groups` returns them.
        case: Renders a case id (a code span).
        text: Renders untrusted text as a cell's plain text.
    """
    if not groups:
        return []
    total = sum(group.count for group in groups)
    causes = len(groups)
    lines = [
        f"### Errored cases ({total:,}), {causes:,} cause{'' if causes == 1 else 's'}",
        "",
        "| cases | error | e.g. |",
        "|---|---|---|",
    ]
    for group in groups:
        shown = ", ".join(case(example.id) for example in group.examples)
        more = group.count - len(group.examples)
        if more:
            shown += f" and {more:,} more"
        lines.append(f"| {group.count:,} | {text(group.message)} | {shown} |")
    return lines


def _is_row(line: str) -> bool:
    return line.startswith("|") and not line.startswith("|---")


def _is_header(lines: Sequence[str], index: int) -> bool:
    following = lines[index + 1] if index + 1 < len(lines) else ""
    return following.startswith("|---")


#: The widths a cell is shortened to, in turn, when the kept rows alone are too long.
CELL_WIDTHS = (200, 80)

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_CODE_SPAN = re.compile(r"(`+)( ?)(.*?)\2\1", re.S)


def shorten_cell(cell: str, width: int) -> str:
    """``cell`` cut to ``width`` characters with an ellipsis; a code span stays one.

    >>> shorten_cell("`" + "x" * 10 + "`", 6)
    '`xxx…`'
    >>> shorten_cell("short", 6)
    'short'
    """
    if len(cell) <= width:
        return cell
    span = _CODE_SPAN.fullmatch(cell)
    if span is not None:
        fence, padding, inner = span.groups()
        room = max(1, width - 2 * len(fence + padding) - 1)
        return f"{fence}{padding}{inner[:room].rstrip(chr(92))}…{padding}{fence}"
    text = cell[: width - 1]
    # A code span cut open would swallow the rest of the row: the cut goes before it.
    if text.count("`") % 2:
        text = text[: text.rindex("`")]
    return text.rstrip(chr(92)) + "…"


def _shorten_row(row: str, width: int) -> str:
    cells = _CELL_SPLIT.split(row)
    inner = [shorten_cell(cell.strip(), width) for cell in cells[1:-1]]
    return "| " + " | ".join(inner) + " |"


def cut_between_rows(
    lines: Sequence[str], limit: int, *, keep: Collection[str], where: str
) -> list[str]:
    """``lines`` shortened to ``limit`` characters (joined by newlines) by whole rows.

    Table rows are left out from the end of the body backwards, except the rows in
    ``keep`` (the gated metrics and failing cases, which a reader must find) and each
    table's header; a line then says how many rows were left out and where the full list
    is. When the kept rows alone are too long, their overlong cells (a 7,000-character id)
    are shortened with an ellipsis instead; only a body still too long then loses kept
    rows, since GitHub refuses a body over its limit whole.

    Args:
        lines: The body's lines.
        limit: The longest body allowed, the note included.
        keep: Rows never left out.
        where: Where the full list is (``the HTML report in the run's artifacts``).

    >>> body = ["# Cases", "| id |", "|---|", *(f"| case-{n} |" for n in range(9))]
    >>> cut_between_rows(body, 100, keep={"| case-0 |"}, where="the HTML report")[3:]
    ['| case-0 |', '| case-1 |', '', '7 rows left out; the full list is in the HTML report.']
    """
    size = sum(len(line) + 1 for line in lines)
    if size <= limit:
        return list(lines)
    kept: list[str] = []
    kept_rows: Collection[str] = keep
    left_out = shortened = 0
    note_room = len(_note(len(lines), 0, where)) + 2

    def leave_out(spare_kept: bool) -> None:
        nonlocal size, left_out
        for index in range(len(kept) - 1, -1, -1):
            if size + note_room <= limit:
                return
            line = kept[index]
            if not _is_row(line) or (spare_kept and line in kept_rows) or _is_header(kept, index):
                continue
            size -= len(line) + 1
            del kept[index]
            left_out += 1

    # Whole rows first; when the kept rows alone are too long, every overlong cell is
    # shortened at one width (so the rows read alike) and the other rows are cut again.
    for width in (None, *CELL_WIDTHS):
        kept, left_out, shortened = list(lines), 0, 0
        if width is not None:
            note_room = len(_note(len(lines), len(lines), where)) + 2
            kept_rows = {_shorten_row(row, width) for row in keep}
            for index, line in enumerate(kept):
                if _is_row(line) and not _is_header(kept, index):
                    short = _shorten_row(line, width)
                    if len(short) < len(line):
                        kept[index] = short
                        shortened += 1
        size = sum(len(line) + 1 for line in kept)
        leave_out(spare_kept=True)
        if size + note_room <= limit:
            break
    leave_out(spare_kept=False)
    return [*kept, "", _note(left_out, shortened, where)]


def _note(left_out: int, shortened: int, where: str) -> str:
    said = []
    if left_out:
        said.append(f"{left_out:,} row{'' if left_out == 1 else 's'} left out")
    if shortened:
        said.append(f"{shortened:,} long row{'' if shortened == 1 else 's'} shortened")
    return f"{'; '.join(said) or 'Shortened'}; the full list is in {where}."
