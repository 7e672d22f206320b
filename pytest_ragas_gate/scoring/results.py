"""What scoring produces per case; the unit that reports, re-gating and merging share."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ..config_values import read_threshold
from ..golden.cases import GoldenCase, LabelSampling, case_identity
from ..golden.golden_fields import canonical_field
from ..golden.trace_origin import trace_origin
from ..model_defaults import empty_list
from ..text_safety import json_text
from ..usage import Usage
from .pairwise_verdict import PairwiseVerdict
from .repeats import AutoRepeat, ItemAgreement
from .score_checks import EXPECTED_SCORE, score_problem
from .unknown_fields import closest_field, known_field_names


def _a_score(value: object) -> object:
    # A saved report is read back through here (regate, merge, compare, a baseline): a
    # hand-edited 1.7 or a NaN must stop the command, not widen an interval.
    problem = score_problem(value)
    if problem is not None:
        raise ValueError(f"score {value!r} is {problem}; {EXPECTED_SCORE}")
    return value


#: A metric's score in a case result: a finite number from 0 to 1, or None (n/a).
Score = Annotated[float | None, BeforeValidator(_a_score)]


class CaseResult(BaseModel):
    """One case's scores, per-item verdicts, errors and usage.

    ``scores`` holds a number per scored metric and None per not-applicable one; a metric
    that errored is absent from ``scores`` and present in ``errors``. ``error`` is set when
    the whole case failed (malformed case, target exception, budget stop) — then no metric
    was scored and every selected metric counts it as an error. ``incomplete`` marks a case
    the run stopped short of (budget spent, interrupted), which makes the report incomplete.
    ``judge_errors`` names the metrics in ``errors`` whose judge gave no usable answer
    (an outage, a reply still invalid after the re-asks, a spent budget, a replay miss):
    the gate calls a run it cannot decide for that reason ``error``, not ``failed``.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    source: str
    tags: list[str] = Field(default_factory=empty_list)
    question: str = ""
    answer: str | None = None
    contexts: list[str] | None = None
    # With the question, what tells a baseline's case from another of the same id.
    reference: str | None = None
    # The retrieval call (hop, from 1) that returned each context, when the system
    # retrieved more than once; None otherwise.
    context_hops: list[int | None] | None = None
    thresholds: dict[str, float] = Field(default_factory=dict)
    # The case's human labels ride with its result, so a saved report re-gates with them.
    human: dict[str, float] = Field(default_factory=dict)
    # How the case was picked for labelling (random or near_threshold; None: not said,
    # taken as random). PPI uses only randomly sampled labels.
    sampled_by: LabelSampling | None = None
    metrics: list[str] = Field(default_factory=empty_list)
    scores: dict[str, Score] = Field(default_factory=dict)
    reasons: dict[str, str] = Field(default_factory=dict)
    details: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    errors: dict[str, str] = Field(default_factory=dict)
    # Repeated judgements (repeats >= 2): per metric, each repeat's score (``scores`` holds
    # their mean) and how many item verdicts every repeat gave alike; the judge's noise is
    # measured from these, in a run and in a re-gated report alike.
    repeat_scores: dict[str, list[Score]] = Field(default_factory=dict)
    repeat_agreement: dict[str, ItemAgreement] = Field(default_factory=dict)
    # Under ``repeats: auto``: why this case was judged again, and what that cost.
    auto_repeat: AutoRepeat | None = None
    # With ``pairwise: true``: this case's answer judged against the baseline's answer.
    pairwise: PairwiseVerdict | None = None
    # The metrics whose error is the judge's not answering (outage, spent budget, a miss in
    # read mode): a run whose every failure is such an error ends ``error``, not ``failed``.
    judge_errors: list[str] = Field(default_factory=empty_list)
    error: str | None = None
    incomplete: bool = False
    usage: dict[str, Usage] = Field(default_factory=dict)
    latency_s: float | None = None
    # The live target's call failed (raised, timed out, no answer); latency_s is its time.
    target_failed: bool = False
    # max_calls / max_cost stopped the case before it was scored: a setting, not a judge
    # that misbehaved.
    budget_spent: bool = False
    scoring_s: float = 0.0
    # A conversation's exchange: the conversation's id and the exchange's number (from 1).
    # The gate aggregates such results per conversation (see conversation_groups).
    conversation: str | None = None
    turn: int | None = None
    # Golden fields the case lacks but has a key one edit away from (``contexts`` →
    # ``context``): the gate names the key when the field's absence leaves metrics n/a.
    misspelt: dict[str, str] = Field(default_factory=dict)
    # The trace the case was imported from (``trace_id``, and ``span_id`` when known), so
    # its results can be sent back beside it (outputs.otel).
    trace: dict[str, str] | None = None
    # Checks the case carries that the gate cannot run (the golden row's
    # ``metadata.unchecked_asserts``, as an import writes them): a run that passes with
    # any is no deploy decision, since the tool they came from may still fail the case.
    unchecked: list[str] = Field(default_factory=empty_list)

    @classmethod
    def of_case(
        cls,
        case: GoldenCase,
        *,
        metrics: Sequence[str] = (),
        error: str | None = None,
        incomplete: bool = False,
    ) -> CaseResult:
        """The result of ``case`` before any metric is scored: what the reports show of it.

        Every path that produces a result (scoring, a live target's failure, an
        interruption, a result lost with an xdist worker) starts here, so each carries the
        case's tags, thresholds, answer and contexts alike.
        """
        return cls(
            id=case.id,
            source=case.source,
            tags=list(case.tags),
            question=case.question,
            answer=case.answer,
            contexts=case.context_texts if case.contexts is not None else None,
            reference=case.reference,
            context_hops=(
                [context.hop for context in case.contexts]
                if case.contexts and any(context.hop is not None for context in case.contexts)
                else None
            ),
            thresholds={
                metric: read_threshold(metric, value)[0]
                for metric, value in case.thresholds.items()
            },
            human=dict(case.human),
            sampled_by=case.sampled_by if case.human else None,
            metrics=list(metrics),
            error=error,
            incomplete=incomplete,
            conversation=case.conversation,
            turn=case.turn,
            misspelt=misspelt_fields(case),
            trace=trace_origin(case.metadata),
            unchecked=_unchecked(case.metadata),
        )

    @classmethod
    def of_problem(
        cls,
        file: str,
        line: int,
        label: str,
        message: str,
        salvaged: Mapping[str, Any] | None = None,
    ) -> CaseResult:
        """The result of a malformed case, which never reached scoring: an error.

        ``label`` is the case's id, or ``line-N`` when it has none; ``salvaged`` the fields
        of the row that still read as written (its question, answer, contexts, tags), kept
        so the reports show the case with every field it had.
        """
        kept = dict(salvaged or {})
        return cls(
            id=label,
            source=f"{file}:{line}",
            error=message,
            question=str(kept.get("question", "")),
            answer=kept.get("answer"),
            contexts=kept.get("contexts"),
            tags=list(kept.get("tags") or []),
        )

    def to_json(self) -> str:
        r"""The result as JSON text that always encodes as UTF-8.

        A judge's reply or a live target's answer can hold a lone surrogate, which
        pydantic's own JSON writer refuses; it is written as its ``\uXXXX`` escape.
        """
        return json_text(self.model_dump(mode="json"))

    @classmethod
    def from_json(cls, text: str) -> CaseResult:
        """Read back what :meth:`to_json` wrote (lone-surrogate escapes included)."""
        return cls.model_validate(json.loads(text))

    @property
    def file(self) -> str:
        """The golden file the case came from (its source without the line)."""
        return split_source(self.source)[0]

    @property
    def key(self) -> str:
        """The case's identity across runs and reports: ``file::id``."""
        return case_identity(self.file, self.id)

    @property
    def errored(self) -> bool:
        """Whether the case or any of its metrics errored."""
        return self.error is not None or bool(self.errors)


_KNOWN_FIELDS = known_field_names({})
#: The golden fields whose absence leaves metrics n/a: a key one edit from one of these, on
#: a row without it, is most likely that field misspelt.
_SCORED_FIELDS = frozenset({"question", "answer", "contexts", "reference", "relevant_context_ids"})


def misspelt_fields(case: GoldenCase) -> dict[str, str]:
    """The golden fields ``case`` lacks, each with the unknown key one edit from it.

    >>> case = GoldenCase(id="a", question="q?", metadata={"context": ["text"]})
    >>> misspelt_fields(case)
    {'contexts': 'context'}
    """
    found: dict[str, str] = {}
    for key in case.metadata:
        match = closest_field(key, _KNOWN_FIELDS)
        if match is None or match[1] != 1:
            continue
        field = canonical_field(match[0]) or match[0]
        if field in _SCORED_FIELDS and not case.has(field):
            found.setdefault(field, key)
    return found


def split_source(source: str) -> tuple[str, int | None]:
    """Split a ``path:line`` source into the path and the line number.

    Args:
        source: A case's source, e.g. ``golden/qa.jsonl:12``.

    Returns:
        ``(path, line)``; line is None when the source carries none.

    Example:
        >>> split_source("golden/qa.jsonl:12")
        ('golden/qa.jsonl', 12)
        >>> split_source("C:/sets/qa.csv:7")
        ('C:/sets/qa.csv', 7)
        >>> split_source("stdin")
        ('stdin', None)
    """
    path, _, line = source.rpartition(":")
    if path and line.isdigit():
        return path, int(line)
    return source, None


def canonical_order(results: Sequence[CaseResult]) -> list[CaseResult]:
    """The results sorted by (source, id): the order every aggregate is computed in.

    Args:
        results: Case results in any order (e.g. as xdist workers reported them).

    Returns:
        A new, sorted list.
    """
    return sorted(results, key=lambda result: (result.source, result.id))


#: Conversation metrics whose conversation score is the worst turn's, not the mean.
WORST_TURN_METRICS = frozenset({"turn_faithfulness_min"})


def conversation_groups(results: Sequence[CaseResult]) -> list[list[CaseResult]]:
    """``results`` as the gate's units: a conversation's turns together, other cases alone.

    Groups keep the order of their first result, so canonical order in gives canonical
    order out; a conversation is one unit however many turns it has, so long chats do
    not outweigh short ones.

    >>> turn = lambda n: CaseResult(id=f"chat#{n}", source="g.jsonl:1", conversation="chat")
    >>> single = CaseResult(id="plain", source="g.jsonl:2")
    >>> [[r.id for r in group] for group in conversation_groups([turn(1), single, turn(2)])]
    [['chat#1', 'chat#2'], ['plain']]
    """
    groups: dict[tuple[str, str], list[CaseResult]] = {}
    units: list[list[CaseResult]] = []
    for result in results:
        if result.conversation is None:
            units.append([result])
            continue
        key = (result.file, result.conversation)
        if key not in groups:
            groups[key] = []
            units.append(groups[key])
        groups[key].append(result)
    return units


def conversation_score(metric: str, turn_scores: Sequence[float]) -> float:
    """A conversation's score from its turns' scores: their mean, or the worst turn's.

    >>> conversation_score("faithfulness", [1.0, 1.0, 0.0])
    0.6666666666666666
    >>> conversation_score("turn_faithfulness_min", [1.0, 1.0, 0.0])
    0.0
    """
    if metric in WORST_TURN_METRICS:
        return min(turn_scores)
    return sum(turn_scores) / len(turn_scores)


def usage_by_metric(results: Sequence[CaseResult]) -> dict[str, Usage]:
    """Judge usage per metric, summed over ``results``, in first-seen metric order."""
    totals: dict[str, Usage] = {}
    for result in results:
        for metric, usage in result.usage.items():
            totals[metric] = totals.get(metric, Usage()) + usage
    return totals


def _unchecked(metadata: Mapping[str, Any]) -> list[str]:
    """The checks a golden row says the gate cannot run: ``metadata.unchecked_asserts``."""
    found = metadata.get("unchecked_asserts")
    if isinstance(found, str):
        return [found]
    if isinstance(found, list):
        return [str(item) for item in found]
    return []
