"""Citation precision and recall: do an answer's inline citations point at what backs it.

An answer that cites its sources ("… valid for 3 hours [2].") is checked sentence by
sentence (TruLens groundedness per cited source; RAGAS PR #2811). Markers are found by a
regular expression: by default ``[n]`` (the n-th retrieved context, 1-based), ``[id]`` (a
context's id) and ``【n】``; ``citation_pattern`` replaces it. Both metrics read one judge
request per case, :class:`~pytest_ragas_gate.judges.requests.VerifyCitations`, which the
scheduler answers once for the two. An answer with no marker is not applicable to both:
an uncited answer is not a badly cited one.

The markers are parsed here rather than by a library: no maintained package reads
numeric and id citations together, and the rule (which sentence a marker belongs to, what
it resolves to) is the metric's definition, so it belongs next to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import JudgeReplyError
from ..golden.cases import Context, GoldenCase
from ..judges.base import CaseJudge
from ..judges.offline.text import split_sentences
from ..judges.requests import CitationVerdicts, VerifyCitations
from ._case_fields import required_contexts, required_text
from .base import Metric, MetricResult, Stage
from .formulas import share

__all__ = [
    "DEFAULT_CITATION_PATTERN",
    "CitationPrecision",
    "CitationRecall",
    "CitedSentence",
    "compile_citation_pattern",
    "find_citations",
]

#: ``[2]``, ``[2, 3]``, ``[doc-7]`` and ``【2】``; the first group that matched is the marker's
#: content, split at commas.
DEFAULT_CITATION_PATTERN = r"\[([^\[\]\n]{1,80})\]|【([^【】\n]{1,80})】"

_SENTENCE_END = ".!?。！？；"


def compile_citation_pattern(pattern: str | None) -> re.Pattern[str]:
    r"""The citation regex; it must have at least one group capturing a marker's content.

    Raises:
        ValueError: When ``pattern`` is not a regular expression, or has no group.

    >>> compile_citation_pattern(r"\^(\d+)").groups
    1
    >>> compile_citation_pattern(r"\^\d+")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: citation_pattern ... has no group; ...
    """  # noqa: E501
    source = DEFAULT_CITATION_PATTERN if pattern is None else pattern
    try:
        compiled = re.compile(source)
    except re.error as error:
        raise ValueError(
            f"citation_pattern {source!r} is not a regular expression ({error}); expected "
            r"one whose group captures the cited rank or id, e.g. '\[(\d+)\]'"
        ) from error
    if compiled.groups < 1:
        raise ValueError(
            f"citation_pattern {source!r} has no group; expected a regular expression whose "
            r"group captures the cited rank or id, e.g. '\[(\d+)\]'"
        )
    return compiled


@dataclass(frozen=True)
class CitedSentence:
    """One sentence of the answer, its markers removed, and what it cites.

    ``cited`` holds the 0-based ranks of the contexts it cites; ``dangling`` the markers
    that name no retrieved context (``[7]`` of three), which count as unsupported
    citations.
    """

    text: str
    cited: tuple[int, ...] = ()
    dangling: tuple[str, ...] = field(default=())

    @property
    def citations(self) -> int:
        """How many citations the sentence carries."""
        return len(self.cited) + len(self.dangling)


def _resolve(token: str, contexts: list[Context]) -> int | None | str:
    """The 0-based rank ``token`` names, ``token`` itself when it names none, or None.

    None means the text is no citation at all (``[sic]``, a Markdown link's text).
    """
    for rank, context in enumerate(contexts):
        if context.id is not None and context.id == token:
            return rank
    if token.isdigit():
        rank = int(token) - 1
        return rank if 0 <= rank < len(contexts) else token
    return None


def _marker_tokens(match: re.Match[str]) -> list[str]:
    content = next((group for group in match.groups() if group is not None), match.group(0))
    return [token.strip() for token in content.split(",") if token.strip()]


def find_citations(
    answer: str, contexts: list[Context], pattern: re.Pattern[str]
) -> list[CitedSentence] | None:
    """The answer's sentences with their citations, or None when it has no marker.

    A marker right after a sentence's end (``… free.[2] Next``) belongs to that sentence.

    >>> contexts = [Context(text="Tickets last 3 hours."), Context(id="kids", text="Kids ride free.")]
    >>> pattern = compile_citation_pattern(None)
    >>> for sentence in find_citations("Tickets last 3 hours.[1] Kids ride free [kids][9].", contexts, pattern):
    ...     print(sentence)
    CitedSentence(text='Tickets last 3 hours.', cited=(0,), dangling=())
    CitedSentence(text='Kids ride free.', cited=(1,), dangling=('9',))
    >>> find_citations("Tickets last 3 hours [sic].", contexts, pattern) is None
    True
    """  # noqa: E501
    markers = [
        match
        for match in pattern.finditer(answer)
        if any(_resolve(token, contexts) is not None for token in _marker_tokens(match))
    ]
    if not markers:
        return None
    # Each marker becomes a placeholder that sentence splitting keeps inside its sentence;
    # one that follows a sentence end moves in front of it.
    placeholders: list[re.Match[str]] = []
    pieces: list[str] = []
    position = 0
    for match in markers:
        pieces.append(answer[position : match.start()])
        pieces.append(f"\x00{len(placeholders)}\x00")
        placeholders.append(match)
        position = match.end()
    pieces.append(answer[position:])
    text = "".join(pieces)
    text = re.sub(
        rf"([{_SENTENCE_END}])((?:\s*\x00\d+\x00)+)",
        lambda found: found.group(2).strip() + found.group(1),
        text,
    )
    sentences: list[CitedSentence] = []
    for sentence in split_sentences(text):
        cited: list[int] = []
        dangling: list[str] = []
        for number in re.findall(r"\x00(\d+)\x00", sentence):
            for token in _marker_tokens(placeholders[int(number)]):
                rank = _resolve(token, contexts)
                if isinstance(rank, int):
                    if rank not in cited:
                        cited.append(rank)
                elif rank is not None:
                    dangling.append(rank)
        clean = re.sub(r"\s*\x00\d+\x00", "", sentence).strip()
        if clean:
            sentences.append(CitedSentence(clean, tuple(cited), tuple(dangling)))
    return sentences


async def judge_citations(
    case: GoldenCase, judge: CaseJudge, metric: str, pattern: re.Pattern[str]
) -> tuple[list[CitedSentence], CitationVerdicts] | None:
    """The cited sentences and the judge's verdicts on them; None when nothing is cited."""
    answer = required_text(case, "answer", metric)
    contexts = required_contexts(case, metric)
    sentences = find_citations(answer, contexts, pattern)
    if sentences is None:
        return None
    request = VerifyCitations(
        sentences=[sentence.text for sentence in sentences],
        cited=[list(sentence.cited) for sentence in sentences],
        contexts=[context.text for context in contexts],
    )
    reply = await judge.ask(request)
    problem = request.reply_problem(reply)
    if problem is not None:
        raise JudgeReplyError(
            f"The judge's {VerifyCitations.kind} reply for case {case.id!r} ({case.source}) "
            f"cannot be scored: {problem}."
        )
    return sentences, reply


def _details(
    sentences: list[CitedSentence], reply: CitationVerdicts, contexts: list[Context]
) -> list[dict[str, Any]]:
    verdicts = {verdict.index: verdict for verdict in reply.sentences}
    details = []
    for index, sentence in enumerate(sentences):
        verdict = verdicts[index]
        details.append(
            {
                "sentence": sentence.text,
                "factual": verdict.factual,
                "cited": [_label(rank, contexts) for rank in sentence.cited]
                + [f"[{marker}] (no such context)" for marker in sentence.dangling],
                "supporting": [_label(rank, contexts) for rank in sorted(verdict.supporting)],
                "supported": bool(verdict.supporting),
                "reason": verdict.reason,
            }
        )
    return details


def _label(rank: int, contexts: list[Context]) -> str:
    context_id = contexts[rank].id
    return f"[{rank + 1}]" if context_id is None else f"[{rank + 1}] {context_id}"


class _CitationMetric(Metric):
    required_fields: tuple[str, ...] = ("question", "answer", "contexts")
    judge_requests: tuple[str, ...] | None = ("verify_citations",)
    default_threshold: float | None = None
    stage: Stage = "generation"
    hint: str = (
        "Have the generator cite the context each sentence comes from, and check that the "
        "citation numbers follow the order in which contexts are given to it."
    )

    def __init__(self, pattern: str | None = None) -> None:
        self.pattern = compile_citation_pattern(pattern)

    def absent_fields(self, case: GoldenCase) -> list[str]:
        """``["citations"]`` when the answer carries no citation marker.

        A report-only metric then runs only on cases that cite, as a metric without a
        threshold runs only on cases that have its fields; selected or gated,
        ``citation_precision`` makes an uncited case not applicable (``no citations``):
        there is no citation to be precise about, while ``citation_recall`` scores it 0.
        """
        found = find_citations(case.answer or "", case.contexts or [], self.pattern)
        return ["citations"] if found is None else []


class CitationPrecision(_CitationMetric):
    """Share of the answer's citations whose cited context supports the sentence carrying it.

    A marker naming no retrieved context counts as a citation that supports nothing.
    """

    name: str = "citation_precision"

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        judged = await judge_citations(case, judge, self.name, self.pattern)
        if judged is None:
            return MetricResult.lacking(["citations"])
        sentences, reply = judged
        verdicts = {verdict.index: verdict for verdict in reply.sentences}
        total = sum(sentence.citations for sentence in sentences)
        supported = sum(
            len(set(sentence.cited) & set(verdicts[index].supporting))
            for index, sentence in enumerate(sentences)
        )
        return MetricResult(
            score=share(supported, total),
            details=_details(sentences, reply, case.contexts or []),
            reason=f"{supported} of {total} citations support their sentence",
        )


class CitationRecall(_CitationMetric):
    """Share of the answer's factual sentences that carry at least one supporting citation.

    An answer with no citation marker scores 0: it cited nothing it should have. (A team
    whose answers carry no citations on purpose does not gate citations.)
    """

    name: str = "citation_recall"

    #: Chosen for a case (selected or gated), an uncited answer scores 0, not n/a; as a
    #: report-only metric it still runs only on the cases that cite.
    scored_when_absent: tuple[str, ...] = ("citations",)

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        judged = await judge_citations(case, judge, self.name, self.pattern)
        if judged is None:
            return MetricResult(score=0.0, reason="the answer carries no citation marker")
        sentences, reply = judged
        factual = [verdict for verdict in reply.sentences if verdict.factual]
        if not factual:
            return MetricResult.not_applicable("the answer makes no factual statement")
        backed = sum(1 for verdict in factual if verdict.supporting)
        return MetricResult(
            score=share(backed, len(factual)),
            details=_details(sentences, reply, case.contexts or []),
            reason=f"{backed} of {len(factual)} factual sentences carry a supporting citation",
        )
