"""Keys of golden rows that are no golden field: a misspelt ``contexts`` must not pass unseen.

An unknown key is kept as metadata, so a row that says ``"context"`` instead of
``"contexts"`` loads fine and every metric that needs contexts quietly has nothing to score.
This check runs on each golden file once it is read:

- a key close to a known field (one or two edits), on a row that lacks that field, is a
  warning naming ``file:line``, the key and the field it resembles;
- under ``strict_fields: true`` every unknown key is an error of its case, and so is a
  warned key when the warnings filter makes the warning an error (``-W error``);
- a file where every row has the same unknown key one edit from a known field that no row
  has is an error of each of its cases: nothing in it could be scored as the user meant
  (the other golden files of the run are still collected and scored).
"""

from __future__ import annotations

import linecache
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..golden.golden_fields import FIELD_ALIASES, canonical_field, read_as_metadata
from ..golden.loading import CaseProblem, LoadedFile
from ..metrics.base import Metric

__all__ = [
    "FieldCheck",
    "FieldWarning",
    "GoldenFieldWarning",
    "check_field_names",
    "closest_field",
    "known_field_names",
]

#: Top-level keys the gate reads besides the golden fields (review state, live-mode tool,
#: oracle contexts, and the ``metadata`` mapping itself).
_READ_FROM_METADATA = ("metadata", "review", "tool", "expected_tool", "reference_contexts")

#: Known keys no unknown key is taken for a misspelling of: an ``id`` is derived when
#: missing (``qid`` is a common column of its own), and these hold no scored content.
_NEVER_SUGGESTED = frozenset({"id", "metadata", "review"})

#: How many lines a warning names before it says "and N more".
_LINES_NAMED = 5

#: Keys of a conversation turn: DeepEval's ``Turn`` fields, RAGAS's message fields
#: (``HumanMessage``, ``AIMessage``, ``ToolMessage``), and the gate's own per-turn fields.
TURN_KEYS: tuple[str, ...] = (
    "role",
    "content",
    "user_id",
    "retrieval_context",
    "tools_called",
    "mcp_tools_called",
    "mcp_resources_called",
    "mcp_prompts_called",
    "additional_metadata",
    "metadata",
    "type",
    "tool_calls",
    "contexts",
    "retrieved_contexts",
    "reference",
    "expected_output",
    "expected_tools",
    "max_steps",
)


def known_field_names(metrics: Mapping[str, Metric]) -> list[str]:
    """Every top-level key the gate understands, golden fields first.

    >>> names = known_field_names({})
    >>> names[:3], "ground_truth" in names
    (['id', 'question', 'answer'], True)
    """
    names = list(FIELD_ALIASES)
    names += [alias for aliases in FIELD_ALIASES.values() for alias in aliases]
    names += _READ_FROM_METADATA
    names += [field for metric in metrics.values() for field in metric.required_fields]
    return list(dict.fromkeys(names))


def _edits(first: str, second: str) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours from one to the other."""
    rows = [list(range(len(second) + 1))]
    for i, left in enumerate(first, 1):
        row = [i]
        for j, right in enumerate(second, 1):
            cost = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (left != right))
            if i > 1 and j > 1 and left == second[j - 2] and first[i - 2] == right:
                cost = min(cost, rows[-2][j - 2] + 1)
            row.append(cost)
        rows.append(row)
    return rows[-1][-1]


def closest_field(key: str, known: Sequence[str]) -> tuple[str, int] | None:
    """The known field ``key`` most likely misspells, and how many edits away it is.

    Short keys must be one edit away, longer ones at most two; otherwise None.

    >>> closest_field("Context", known_field_names({}))
    ('contexts', 1)
    >>> closest_field("refrence", known_field_names({}))
    ('reference', 1)
    >>> closest_field("category", known_field_names({})) is None
    True
    >>> closest_field("qid", known_field_names({})) is None
    True
    """
    name = key.strip().lower()
    limit = 1 if len(name) < 5 else 2
    best: tuple[str, int] | None = None
    for field in known:
        if field in _NEVER_SUGGESTED:
            continue
        distance = _edits(name, field.lower())
        if 0 < distance <= limit and (best is None or distance < best[1]):
            best = (field, distance)
    return best


class GoldenFieldWarning(UserWarning):
    """A golden row has a key that looks like a misspelt golden field."""


@dataclass(frozen=True)
class FieldWarning:
    """One misspelt-looking key of a file: where it is first, what to say, which rows have it.

    Attributes:
        line: The first line with the key, where the warning is located.
        message: The warning, naming the file, the lines, the key and the field.
        cases: Each row's line with the key, and what its case's error says when the
            warnings filter makes the warning an error (``-W error``).
    """

    line: int
    message: str
    cases: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class FieldCheck:
    """The checked file and the warnings to show for it."""

    loaded: LoadedFile
    warnings: list[FieldWarning]

    def warn(self, *, shown: bool = True) -> LoadedFile:
        """Issue each warning as a ``GoldenFieldWarning`` located at the golden file's line.

        Returns the file, where a warning the warnings filter turns into an error
        (``-W error``, ``filterwarnings = error``) has made each case it names an error of
        that case, with the warning's ``file:line`` message, rather than a traceback of
        the collection. ``shown`` False (every xdist worker but one) asks the filter the
        same question without showing the warning, so every worker errors the same cases.
        """
        path = self.loaded.path
        escalated: dict[int, list[str]] = {}
        for found in self.warnings:
            # A golden row is no Python source line: the warnings summary must not quote it.
            linecache.cache[path] = (0, None, [], path)
            try:
                with warnings.catch_warnings(record=not shown):
                    warnings.warn_explicit(
                        GoldenFieldWarning(found.message), GoldenFieldWarning, path, found.line
                    )
            except GoldenFieldWarning:
                for line, reason in found.cases:
                    escalated.setdefault(line, []).append(reason)
        if not escalated:
            return self.loaded
        return _problems_at(
            self.loaded,
            {
                line: "; ".join(reasons) + " (a warning, an error under -W error; keep your "
                "own fields under 'metadata')"
                for line, reasons in escalated.items()
            },
        )


def _is_known(key: str, known: Iterable[str]) -> bool:
    return canonical_field(key) is not None or key.strip().lower() in {
        name.lower() for name in known
    }


def _present(field: str, keys: Iterable[str]) -> bool:
    """Whether a row with ``keys`` gives ``field`` (under any of its aliases)."""
    canonical = canonical_field(field) or field.lower()
    return any((canonical_field(key) or key.strip().lower()) == canonical for key in keys)


def check_field_names(
    loaded: LoadedFile, metrics: Mapping[str, Metric], *, strict: bool
) -> FieldCheck:
    """Warn about (or, under ``strict``, refuse) unknown keys of ``loaded``'s rows.

    Every row of the file with the same unknown key, one edit from a known field that no
    row gives, makes every case of the file an error (a misspelt column).
    """
    known = known_field_names(metrics)
    unknown_by_line: dict[int, list[str]] = {}
    for line, keys in loaded.row_keys:
        unknown = [
            key for key in keys if not _is_known(key, known) and not read_as_metadata(key, keys)
        ]
        if unknown:
            unknown_by_line[line] = unknown
    unknown_in_turns = _unknown_turn_keys(loaded)
    if not unknown_by_line and not unknown_in_turns:
        return FieldCheck(loaded, [])
    if unknown_by_line:
        refused = _refuse_a_misspelt_column(loaded, unknown_by_line, known)
        if refused is not None:
            return FieldCheck(refused, [])
    if strict:
        described = {
            line: [_description(key, known) for key in keys]
            for line, keys in unknown_by_line.items()
        }
        for line, found in unknown_in_turns.items():
            described.setdefault(line, []).extend(
                f"{where}: {_description(key, TURN_KEYS)}" for where, key, _ in found
            )
        return FieldCheck(_strict_problems(loaded, described), [])
    return FieldCheck(
        loaded,
        sorted(
            _warnings(loaded, unknown_by_line, known) + _turn_warnings(loaded, unknown_in_turns),
            key=lambda found: (found.line, found.message),
        ),
    )


def _unknown_turn_keys(
    loaded: LoadedFile,
) -> dict[int, list[tuple[str, str, tuple[str, ...]]]]:
    """Per row line, each turn's place, unknown key and the keys the turn gives."""
    known = {name.lower() for name in TURN_KEYS}
    found: dict[int, list[tuple[str, str, tuple[str, ...]]]] = {}
    for line, where, keys in loaded.turn_keys:
        for key in keys:
            if key.strip().lower() not in known:
                found.setdefault(line, []).append((where, key, keys))
    return found


def _turn_warnings(
    loaded: LoadedFile, unknown_in_turns: Mapping[int, list[tuple[str, str, tuple[str, ...]]]]
) -> list[FieldWarning]:
    """One warning per misspelt-looking turn key of the file, at the first line that has it."""
    places: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for line, found in sorted(unknown_in_turns.items()):
        for where, key, _ in found:
            match = closest_field(key, TURN_KEYS)
            # Unlike a row's, a turn's unknown keys are dropped, not kept as the user's own
            # metadata: a key near a known one is a typo even beside it ('contxts' next to
            # 'contexts' loses those contexts).
            if match is None:
                continue
            places.setdefault((key, match[0]), []).append((line, where))
    warned = []
    for (key, field), named in places.items():
        shown = ", ".join(f"{line}:{where}" for line, where in named[:_LINES_NAMED])
        more = f" and {len(named) - _LINES_NAMED} more" if len(named) > _LINES_NAMED else ""
        warned.append(
            FieldWarning(
                named[0][0],
                f"{loaded.path}:{shown}{more}: unknown key {key!r} in a conversation turn — "
                f"did you mean {field!r}? It is ignored, so metrics that need {field!r} are "
                "not applicable to these case(s); strict_fields: true makes this an error",
                tuple(
                    (line, f"{where}: unknown key {key!r} — did you mean {field!r}?")
                    for line, where in named
                ),
            )
        )
    return warned


def _refuse_a_misspelt_column(
    loaded: LoadedFile, unknown_by_line: Mapping[int, list[str]], known: Sequence[str]
) -> LoadedFile | None:
    """``loaded`` with every case errored when all share one misspelt key, else None.

    Each case errors with the file's message, rather than the file failing to collect:
    one file's misspelt column must not stop the other golden files of the run.
    """
    rows = [keys for _, keys in loaded.row_keys]
    if len(unknown_by_line) != len(rows):
        return None
    shared = set.intersection(*(set(unknown) for unknown in unknown_by_line.values()))
    for key in sorted(shared):
        match = closest_field(key, known)
        if match is None or match[1] != 1 or any(_present(match[0], keys) for keys in rows):
            continue
        message = (
            f"{loaded.path}: every case has the key {key!r}, which is no golden field — did "
            f"you mean {match[0]!r}? No case has {match[0]!r}, so the metrics that need it "
            f"could not be computed on any case. Rename the key to {match[0]!r} (or keep "
            "your own fields under 'metadata')."
        )
        problems = [
            CaseProblem(loaded.path, case.line, case.id, message) for case in loaded.cases
        ] + [
            CaseProblem(p.file, p.line, p.case_id, f"{p.message}; {message}")
            for p in loaded.problems
        ]
        problems.sort(key=lambda problem: problem.line)
        return LoadedFile(loaded.path, [], problems, loaded.row_keys, loaded.turn_keys)
    return None


def _description(key: str, known: Sequence[str]) -> str:
    match = closest_field(key, known)
    hint = f" — did you mean {match[0]!r}?" if match is not None else ""
    return f"unknown key {key!r}{hint}"


def _warnings(
    loaded: LoadedFile, unknown_by_line: Mapping[int, list[str]], known: Sequence[str]
) -> list[FieldWarning]:
    """One warning per misspelt-looking key of the file, at the first line that has it."""
    keys_of_line = dict(loaded.row_keys)
    lines_of_key: dict[tuple[str, str], list[int]] = {}
    for line, unknown in unknown_by_line.items():
        for key in unknown:
            match = closest_field(key, known)
            # A key near a field the row also gives is the user's own, not a typo of it.
            if match is None or _present(match[0], keys_of_line[line]):
                continue
            lines_of_key.setdefault((key, match[0]), []).append(line)
    found = []
    for (key, field), lines in lines_of_key.items():
        shown = ", ".join(str(line) for line in lines[:_LINES_NAMED])
        more = f" and {len(lines) - _LINES_NAMED} more" if len(lines) > _LINES_NAMED else ""
        found.append(
            FieldWarning(
                lines[0],
                f"{loaded.path}:{shown}{more}: unknown key {key!r} — did you mean {field!r}? "
                f"It is kept as metadata, so metrics that need {field!r} are not applicable to "
                "these case(s); strict_fields: true makes this an error",
                tuple((line, f"unknown key {key!r} — did you mean {field!r}?") for line in lines),
            )
        )
    return found


def _strict_problems(loaded: LoadedFile, unknown_by_line: Mapping[int, list[str]]) -> LoadedFile:
    """``loaded`` with every case that has an unknown key (each described) moved to problems."""
    return _problems_at(
        loaded,
        {
            line: "; ".join(described)
            + " (strict_fields: true; keep your own fields under 'metadata')"
            for line, described in unknown_by_line.items()
        },
    )


def _problems_at(loaded: LoadedFile, reasons: Mapping[int, str]) -> LoadedFile:
    """``loaded`` with the case of each line of ``reasons`` moved to problems, with its reason."""
    cases = [case for case in loaded.cases if case.line not in reasons]
    problems = []
    for problem in loaded.problems:
        if problem.line in reasons:
            message = f"{problem.message}; {reasons[problem.line]}"
            problem = CaseProblem(problem.file, problem.line, problem.case_id, message)
        problems.append(problem)
    for case in loaded.cases:
        if case.line in reasons:
            message = f"{loaded.path}:{case.line}: {reasons[case.line]}"
            problems.append(CaseProblem(loaded.path, case.line, case.id, message))
    problems.sort(key=lambda problem: problem.line)
    return LoadedFile(loaded.path, cases, problems, loaded.row_keys, loaded.turn_keys)
