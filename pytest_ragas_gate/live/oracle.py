"""Oracle retrieval: the live target answers from the case's gold contexts.

A low faithfulness can be the generator's fault or the retriever's (the facts were never
retrieved). Oracle mode tells them apart: the target is called with the gold contexts,
through a ``contexts=`` keyword, instead of retrieving. The gold contexts are the case's
``reference_contexts`` (texts), else the chunks its ``relevant_context_ids`` name in the
corpus file given as ``live.corpus`` (JSON Lines of ``{"id", "text"}``).

* ``live.oracle: only``: every case is answered from its gold contexts and
  the retrieval metrics are not scored — the generator's quality with perfect retrieval.
* ``live.oracle: both``: each case is answered twice; the generation metrics are
  scored on both answers, the oracle ones as ``oracle_<metric>`` (gateable like any
  metric), and the summary prints the per-metric gap: what retrieval costs.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..exceptions import CaseError, ConfigError
from ..golden.cases import Context, GoldenCase
from ..judges.base import CaseJudge
from ..metrics.base import Metric, MetricFacts, MetricResult, missing_fields
from ..metrics.registry import BUILTIN_FACTS
from ..settings.config import GateConfig
from .oracle_gap_figures import ORACLE_PREFIX

if TYPE_CHECKING:
    from .targets import LiveTarget

__all__ = [
    "GENERATION_METRICS",
    "ORACLE_PREFIX",
    "OracleMetric",
    "OracleTarget",
    "apply_oracle",
    "check_accepts_contexts",
    "gold_contexts",
    "read_corpus",
]

#: The built-in metrics that measure the generator, scored under oracle retrieval.
GENERATION_METRICS: tuple[str, ...] = tuple(
    name for name, facts in BUILTIN_FACTS.items() if facts.stage == "generation"
)

#: The built-in metrics of retrieval, which gold contexts make perfect by construction.
RETRIEVAL_METRICS: tuple[str, ...] = tuple(
    name for name, facts in BUILTIN_FACTS.items() if facts.stage == "retrieval"
)


#: Where the oracle answer of ``both`` mode travels from the target to the oracle metrics.
_ORACLE_KEY = "rag_gate_oracle"


def read_corpus(path: Path) -> dict[str, str]:
    """The corpus file's chunks, id → text.

    Raises:
        ConfigError: naming the file, line and field, for an unreadable file, a line
            that is not a JSON object, a missing or non-text ``id``/``text``, or a
            duplicate id.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read the corpus file {path}: {error}.") from None
    corpus: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ConfigError(
                f"{path}:{number}: not JSON ({error.msg}); the corpus file holds one "
                '{"id": ..., "text": ...} object per line.'
            ) from None
        if not isinstance(row, dict):
            raise ConfigError(
                f"{path}:{number}: a JSON {type(row).__name__}; expected an object with "
                "'id' and 'text'."
            )
        for field in ("id", "text"):
            value = row.get(field)
            if isinstance(value, int) and not isinstance(value, bool) and field == "id":
                continue
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(
                    f"{path}:{number}: field {field!r} is "
                    f"{'missing' if value is None else repr(value)}; expected non-empty text."
                )
        chunk_id = str(row["id"])
        if chunk_id in corpus:
            raise ConfigError(f"{path}:{number}: field 'id': {chunk_id!r} appears twice.")
        corpus[chunk_id] = row["text"]
    return corpus


def gold_contexts(case: GoldenCase, corpus: Mapping[str, str] | None) -> list[Context]:
    """The case's gold contexts: ``reference_contexts``, else its ids looked up in the corpus.

    Raises:
        CaseError: naming the case and what it lacks.
    """
    given = case.metadata.get("reference_contexts")
    if given is not None:
        # An empty list is deliberate (an unanswerable question has no gold chunk): the
        # target answers from nothing, and context metrics are not applicable.
        if not isinstance(given, list):
            raise CaseError(
                f"{case.source}: field 'reference_contexts' of case {case.id!r} is a "
                f"{type(given).__name__}; expected a list of texts."
            )
        contexts = []
        for index, item in enumerate(given):
            text = item.get("text") if isinstance(item, dict) else item
            if not isinstance(text, str) or not text.strip():
                raise CaseError(
                    f"{case.source}: field 'reference_contexts' of case {case.id!r}, item "
                    f"{index}: expected a text or an object with 'text'."
                )
            chunk_id = item.get("id") if isinstance(item, dict) else None
            contexts.append(Context(id=None if chunk_id is None else str(chunk_id), text=text))
        return contexts
    if case.relevant_context_ids and corpus is not None:
        missing = [chunk for chunk in case.relevant_context_ids if chunk not in corpus]
        if missing:
            raise CaseError(
                f"{case.source}: case {case.id!r} names relevant_context_ids not in the "
                f"corpus file: {', '.join(missing)}."
            )
        return [Context(id=chunk, text=corpus[chunk]) for chunk in case.relevant_context_ids]
    need = (
        "give it 'reference_contexts', or pass the corpus its relevant_context_ids name "
        "with live.corpus"
        if case.relevant_context_ids
        else "give it 'reference_contexts', or 'relevant_context_ids' and live.corpus"
    )
    raise CaseError(
        f"{case.source}: case {case.id!r} has no gold contexts for oracle retrieval; {need}."
    )


def check_accepts_contexts(target: Any, name: str) -> None:
    """Oracle mode hands the gold contexts over as ``contexts=``; the target must take it.

    Raises:
        ConfigError: naming the target and how to make it accept the keyword.
    """
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        parameters = None
    if parameters is not None and any(
        parameter.name == "contexts"
        and parameter.kind
        in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        or parameter.kind is inspect.Parameter.VAR_KEYWORD
        for parameter in parameters
    ):
        return
    raise ConfigError(
        f"Live-mode target {name} cannot take gold contexts: live.oracle calls it "
        "as target(question, contexts=[text, ...]) to skip retrieval. Give it a keyword "
        "parameter 'contexts' (None when it should retrieve), e.g. "
        "def answer(question, contexts=None): ..."
    )


@dataclass
class OracleTarget:
    """A live target under oracle retrieval (``only`` or ``both``)."""

    inner: LiveTarget
    mode: Literal["only", "both"]
    corpus: Mapping[str, str] | None = None

    @property
    def kind(self) -> str:
        """The inner target's kind."""
        return self.inner.kind

    def describe(self) -> str:
        """The inner target, and how it is called."""
        how = "gold contexts only" if self.mode == "only" else "own retrieval and gold contexts"
        return f"{self.inner.describe()}, oracle retrieval: {how}"

    async def answer(self, case: GoldenCase) -> tuple[GoldenCase, float]:
        """The case filled in: from gold contexts (``only``) or both ways (``both``).

        In ``both`` mode the retriever's answer fills the case and the oracle answer rides
        along for the oracle metrics; a case without gold contexts still gets its usual
        scores, and its oracle metrics are not applicable, saying why.
        """
        if self.mode == "only":
            gold = gold_contexts(case, self.corpus)
            filled, latency = await self.inner.answer(case, contexts=[c.text for c in gold])
            return filled.model_copy(update={"contexts": gold}), latency
        filled, latency = await self.inner.answer(case)
        try:
            gold = gold_contexts(case, self.corpus)
        except CaseError as error:
            oracle: dict[str, Any] = {"error": str(error)}
        else:
            answered, _ = await self.inner.answer(case, contexts=[c.text for c in gold])
            oracle = {"answer": answered.answer, "contexts": gold}
        metadata = {**filled.metadata, _ORACLE_KEY: oracle}
        return filled.model_copy(update={"metadata": metadata}), latency

    def close(self) -> None:
        """Release the inner target."""
        self.inner.close()


class OracleMetric:
    """``oracle_<metric>``: the metric scored on the answer given the gold contexts."""

    def __init__(self, inner: Metric) -> None:
        self.inner = inner
        self.name = ORACLE_PREFIX + inner.name
        self.required_fields: tuple[str, ...] = ("question",)
        self.default_threshold: float | None = None
        facts = MetricFacts.of(inner)
        self.lower_is_better = facts.lower_is_better
        self.stage = facts.stage
        self.hint = facts.hint
        # Its requests carry the gold contexts, not the case's: never paired with them.
        self.judge_requests: tuple[str, ...] | None = None

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score the oracle answer; n/a, with the reason, when the case has no gold contexts."""
        oracle = case.metadata.get(_ORACLE_KEY)
        if not isinstance(oracle, dict):
            raise CaseError(
                f"{case.source}: case {case.id!r} was not answered under oracle retrieval "
                "(oracle metrics need live.oracle: both and a live target)."
            )
        if "error" in oracle:
            # A golden case without gold contexts is a gap in the data, not a judge failure:
            # the oracle side does not apply to it, and its own metrics are scored as usual.
            return MetricResult.not_applicable(str(oracle["error"]))
        oracle_case = case.model_copy(
            update={"answer": oracle["answer"], "contexts": oracle["contexts"]}
        )
        missing = missing_fields(self.inner, oracle_case, scoring=True)
        if missing:
            return MetricResult.lacking(missing)
        return await self.inner.score(oracle_case, judge)


def apply_oracle(
    config: GateConfig,
    metrics: dict[str, Metric],
    target: LiveTarget | None,
    *,
    rootdir: Path,
) -> tuple[GateConfig, dict[str, Metric], OracleTarget | LiveTarget | None]:
    """The run's settings, metrics and target under ``config.oracle``.

    Raises:
        ConfigError: No live target, a target that cannot take ``contexts=``, an
            unreadable corpus file, or a selected metric that oracle-only mode cannot score.
    """
    if config.oracle == "off":
        if config.corpus:
            raise ConfigError("live.corpus is only used with live.oracle.")
        return config, metrics, target
    if target is None:
        raise ConfigError(
            "live.oracle needs live mode: name the RAG system with live.target "
            "(--rag-gate-set live.target=MODULE:FUNCTION) so it can be called with the "
            "gold contexts."
        )
    if target.kind != "function":
        raise ConfigError(
            f"Live-mode target {target.name} is a {target.kind.replace('_', ' ')}, which "
            "cannot take gold contexts; for live.oracle wrap it in a function "
            "def answer(question, contexts=None) that skips retrieval when contexts is given."
        )
    check_accepts_contexts(target.target, target.name)
    corpus = None
    if config.corpus:
        path = Path(config.corpus)
        corpus = read_corpus(path if path.is_absolute() else rootdir / path)
    if config.oracle == "only":
        kept = {name: metric for name, metric in metrics.items() if name not in RETRIEVAL_METRICS}
        retrieval = [name for name in config.metrics or [] if name in RETRIEVAL_METRICS]
        if retrieval:
            raise ConfigError(
                f"live.oracle: only scores the generator; {', '.join(retrieval)} "
                "measure(s) retrieval, which gold contexts make perfect by construction. "
                "Drop them from the metrics, or use live.oracle: both."
            )
        return config, kept, OracleTarget(target, "only", corpus)
    selected = config.metrics
    chosen = [
        name
        for name in GENERATION_METRICS
        if name in metrics and (selected is None or name in selected)
    ]
    oracle_metrics = {ORACLE_PREFIX + name: OracleMetric(metrics[name]) for name in chosen}
    # No registered metric can take an oracle name: the registry refuses the prefix.
    combined: dict[str, Metric] = {**metrics, **oracle_metrics}
    if selected is not None:
        config = config.model_copy(update={"metrics": [*selected, *oracle_metrics]})
    return config, combined, OracleTarget(target, "both", corpus)
