"""The offline judge: deterministic text heuristics, no model, no network, no key.

It answers every request type with the same reply models as the LLM judges, so metrics run
unchanged on it. A claim is supported when its content tokens are covered by the contexts
(entities weigh double; a short CJK claim or a bare name needs all of them) and every value
in it (number, date, time, percentage, in any spelling) appears there. It is contradicted
when a context plainly gives another value for the same thing, or a record's yes/no field
says otherwise; otherwise it is not in the context. JSON records and ``key: value`` contexts
are read as field/value facts. Agreement with human labels is measured by
``benchmarks/offline_agreement.py``.

>>> import asyncio
>>> from pytest_ragas_gate.judges.requests import VerifyClaims
>>> judge = OfflineJudge()
>>> request = VerifyClaims(
...     claims=["Apple was founded in 1976.", "Apple was founded in 1980.", "Apple sells pears."],
...     contexts=["Apple was founded in 1976 by Steve Jobs, Steve Wozniak and Ronald Wayne."],
... )
>>> [verdict.verdict for verdict in asyncio.run(judge.ask(request)).reply.verdicts]
['supported', 'contradicted', 'not_in_context']
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from ...exceptions import JudgeError
from ...usage import Usage
from ..base import NO_CONTEXT, Answer, AskContext, Embedded, JudgeCapabilities, no_embeddings
from ..requests import (
    AttributeAnswer,
    AttributeStatements,
    CaseReview,
    ChunkVerdict,
    ChunkVerdicts,
    CitationVerdicts,
    Claims,
    ClaimVerdict,
    ClaimVerdicts,
    ClassifyCorrectness,
    ContextReview,
    CorrectnessClasses,
    CorrectnessItem,
    DocumentUsage,
    ExtractClaims,
    GeneratedQuestions,
    GenerateQuestions,
    JudgeChunks,
    JudgeRequest,
    RateRelevancy,
    RelevancyRating,
    ReviewCase,
    ReviewContexts,
    SentenceCitations,
    StatementVerdict,
    StatementVerdicts,
    VerifyCitations,
    VerifyClaims,
)
from . import contradiction as _contradiction
from . import records as _records
from . import text as _text
from . import values as _values
from .contradiction import denial_stated, find_contradiction, negation_cues
from .records import read_record
from .refusal import is_lead_in, is_refusal, refuses_whole
from .text import (
    SPEAKER_TOKEN,
    Token,
    clause_claims,
    content_tokens,
    is_noncommittal,
    number_words,
    numbers,
    split_claims,
    split_sentences,
    stem,
)
from .values import find_values, value_spellings

if TYPE_CHECKING:
    from ..compare import CompareAnswers, Comparison

__all__ = ["Evidence", "OfflineJudge", "Support", "check_support", "extract_claims"]

SUPPORT_THRESHOLD = 0.6
"""Share of a claim's (weighted) content tokens the contexts must cover for support."""

SHORT_CLAIM_TOKENS = 3
"""A claim with this many content tokens or fewer must have all of them in the contexts."""

ENTITY_WEIGHT = 2.0
"""Names and other capitalised tokens count double: a wrong name is a wrong fact."""

PREFIX_LENGTH = 5
"""Two words sharing this many leading letters count as the same word (found/founder)."""

CHUNK_RELEVANCE_THRESHOLD = 0.5
"""Share of the target's content a chunk must cover to be judged relevant."""

DOCUMENT_USE_THRESHOLD = 0.3
"""Share of the answer's content a context must cover to count as used."""

_MAX_REASON_ITEMS = 6

_EVIDENCE_CACHE_SIZE = 2048
"""Texts whose evidence is kept: a case's contexts are checked by several requests (claims,
reference statements, each chunk), and cases in flight together each hold a few texts."""

ReplyT = TypeVar("ReplyT", bound=BaseModel)

_NAME_WORD = re.compile(r"[^\W\d_]+")


@functools.lru_cache(maxsize=1)
def _cjk_character() -> re.Pattern[str]:
    # Compiled on the first text that is not ASCII: the class is costly to compile, and
    # ASCII text holds none of it (see text.py).
    return re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def _prefix(token: str) -> str | None:
    if len(token) > PREFIX_LENGTH and token.isalpha() and token.isascii():
        return token[:PREFIX_LENGTH]
    return None


@dataclass(frozen=True)
class Evidence:
    """The contexts, pre-tokenised once so many claims can be checked against them."""

    tokens: frozenset[str]
    prefixes: frozenset[str]
    numbers: frozenset[str]

    @classmethod
    def of(cls, texts: Sequence[str]) -> Evidence:
        """Tokenise ``texts`` (contexts, a reference, a chunk) into evidence.

        Each text is tokenised once and its evidence kept in a bounded cache, so that the
        requests of one case (claims, reference statements, every chunk) share the work.
        """
        parts = [_text_evidence(text) for text in texts]
        if len(parts) == 1:
            return cls(*parts[0])
        empty: frozenset[str] = frozenset()
        return cls(
            empty.union(*(tokens for tokens, _, _ in parts)),
            empty.union(*(prefixes for _, prefixes, _ in parts)),
            empty.union(*(found for _, _, found in parts)),
        )

    def covers(self, token: str) -> bool:
        """Whether the evidence holds ``token`` or a word of the same family."""
        if token in self.tokens or token in self.numbers:
            # A count word in the claim ("two") is backed by the digit in a context ("2").
            return True
        prefix = _prefix(token)
        return prefix is not None and prefix in self.prefixes


@functools.lru_cache(maxsize=_EVIDENCE_CACHE_SIZE)
def _text_evidence(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The tokens, their prefixes and the numbers of one text, as :class:`Evidence` holds them."""
    record = read_record(text)
    if record is not None:
        # A JSON record or key: value lines are read as one sentence per field.
        text = record.text
    tokens: set[str] = set()
    spellings: set[str] = set()
    for sentence in split_sentences(text):
        tokens.update(token.text for token in content_tokens(sentence))
        # Sentence by sentence, the values read for the tokens are read once.
        spellings |= value_spellings(sentence)
    # A claim's lone CJK character ("批" of "第一批", once the numeral is read as a value) is
    # backed by the same character anywhere in the text.
    if not text.isascii():
        tokens.update(_cjk_character().findall(text))
    # A prefix depends on its token alone, so the union of texts' prefixes is the prefixes
    # of their union.
    prefixes = {prefix for token in tokens if (prefix := _prefix(token))}
    return frozenset(tokens), frozenset(prefixes), frozenset(spellings) | number_words(text)


@dataclass(frozen=True)
class Support:
    """The outcome of checking one claim against evidence."""

    supported: bool
    coverage: float
    missing_tokens: tuple[str, ...]
    missing_numbers: tuple[str, ...]

    @property
    def reason(self) -> str:
        """A one-line explanation naming what was missing."""
        problems: list[str] = []
        if self.missing_numbers:
            problems.append("numbers not in the contexts: " + ", ".join(self.missing_numbers))
        if self.missing_tokens:
            shown = ", ".join(self.missing_tokens[:_MAX_REASON_ITEMS])
            more = len(self.missing_tokens) - _MAX_REASON_ITEMS
            shown += f" (+{more} more)" if more > 0 else ""
            problems.append(f"words not in the contexts: {shown}")
        summary = f"coverage {self.coverage:.2f}"
        if self.supported:
            return f"supported: {summary}" + (f"; {problems[0]}" if problems else "")
        return f"not supported: {summary}; " + "; ".join(problems)


#: Words other than its negation a negated claim may miss and still hinge on the negation.
_DENIAL_OTHER_MISSING = 1


def _only_denial_missing(support: Support, cues: frozenset[str]) -> bool:
    """Whether the negation is all, or nearly all, that the claim adds to the contexts."""
    spelt = cues | {stem(cue) for cue in cues}
    others = [token for token in support.missing_tokens if token not in spelt]
    return len(others) <= _DENIAL_OTHER_MISSING


def _name_words(claim: str) -> list[str] | None:
    """The words of ``claim`` when it is a bare name ("Steve Wozniak"), else None."""
    words = _NAME_WORD.findall(claim)
    if words and len(words) <= SHORT_CLAIM_TOKENS and all(word[0].isupper() for word in words):
        return [word.lower() for word in words]
    return None


def _cjk_share(text: str) -> float:
    letters = [char for char in text if char.isalnum()]
    if not letters:
        return 0.0
    cjk = [char for char in letters if not char.isascii() and _cjk_character().match(char)]
    return len(cjk) / len(letters)


def _weighted_coverage(
    tokens: Sequence[Token],
    evidence: Evidence,
    covers: Callable[[Evidence, str], bool] = Evidence.covers,
) -> tuple[float, list[str]]:
    total = 0.0
    covered = 0.0
    missing: list[str] = []
    for token in tokens:
        weight = ENTITY_WEIGHT if token.entity else 1.0
        total += weight
        if covers(evidence, token.text):
            covered += weight
        else:
            missing.append(token.text)
    return (covered / total if total else 1.0), missing


def check_support(claim: str, evidence: Evidence, threshold: float = SUPPORT_THRESHOLD) -> Support:
    """Check one claim against evidence.

    Args:
        claim: The claim or statement to check.
        evidence: The tokenised contexts.
        threshold: Weighted share of the claim's content tokens that must be covered.

    Returns:
        The verdict with its coverage and what was missing.
    """
    tokens = content_tokens(claim)
    coverage, missing = _weighted_coverage(tokens, evidence)
    claim_values = find_values(claim)
    missing_numbers = sorted(
        {value.text for value in claim_values if not value.forms & evidence.numbers}
    )
    # A claim of a few words names one thing: every one of its words must be found, or a
    # name that merely shares characters or one word with the contexts passes.
    name = _name_words(claim)
    short = len(tokens) <= SHORT_CLAIM_TOKENS and (_cjk_share(claim) > 0.5 or name is not None)
    needed = 1.0 if short else threshold
    supported = (bool(tokens) or bool(claim_values)) and coverage >= needed and not missing_numbers
    return Support(supported, coverage, tuple(missing), tuple(missing_numbers))


_LEADING_YES_NO = re.compile(r"^\s*(?:yes|no)[.!]\s+(?=[A-Z])", re.IGNORECASE)
_YES_NO = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|no|nope|correct|right|true|false|indeed|sure)\b"
    r"|^\W*(?:是的|是|对|对的|不是|不对|没有|有)(?:\W|$)",
    re.IGNORECASE,
)


#: An inline citation (``[2]``, ``[1, 3]``, ``[doc-7]``, ``【2】``): where a claim came from,
#: not part of it, so its number is never read as a value the contexts must hold.
_CITATION_MARKER = re.compile(
    r"\s*(?:\[\s*[\w.:#-]+(?:\s*,\s*[\w.:#-]+)*\s*\]|【[^【】\n]{1,80}】)"
)


def strip_markers(text: str, markers: re.Pattern[str] | None) -> str:
    r"""``text`` without the inline citations: the default markers, then ``markers``' own.

    >>> strip_markers("Pro gives 2 TB (source 1).", re.compile(r"\(source (\d+)\)"))
    'Pro gives 2 TB.'
    """
    text = _CITATION_MARKER.sub("", text)
    if markers is None:
        return text
    pieces: list[str] = []
    last = 0
    for match in markers.finditer(text):
        if match.end() == match.start():
            continue
        # The space before a marker goes with it, as for the default markers.
        pieces.append(text[last : match.start()].rstrip())
        last = match.end()
    pieces.append(text[last:])
    return "".join(pieces)


def extract_claims(question: str, answer: str, markers: re.Pattern[str] | None = None) -> list[str]:
    """The answer's atomic claims; a bare yes/no asserts the question's own proposition.

    ``markers`` is a configured ``citation_pattern``: its markers, like the default ones,
    say where a claim came from and are no part of it.

    A clause that only says the answer cannot tell is no claim, as the LLM judges are
    told (:mod:`~pytest_ragas_gate.judges.offline.refusal`), so a refusal has none.

    >>> extract_claims("Were both bands formed in 1990?", "Yes.")
    ['Yes: were both bands formed in 1990']
    >>> extract_claims("When did it open?", "I don't know.")
    []
    >>> extract_claims("When did it open?", "I'm not sure. It opened in 1990.")
    ['It opened in 1990.']
    >>> extract_claims("When?", "I'm sorry, the documents do not say when the office opens.")
    []
    >>> extract_claims("When did it open?", "It opened in 1990 [2].")
    ['It opened in 1990.']
    """
    # "No. The plan never supports it." answers with its second sentence; a leading bare
    # yes/no would otherwise stay glued to it (read as "No." the abbreviation).
    clauses = clause_claims(_LEADING_YES_NO.sub("", strip_markers(answer, markers)))
    claims = [claim for _, facts in clauses for claim in facts]
    # A refusal is read whole: cut into phrases, "the documents do not say when it opens"
    # leaves "… when it opens", which reads like a claim.
    if any(refuses_whole(clause) for clause, _ in clauses) or any(map(is_refusal, claims)):
        # "Sorry," or "根据提供的资料，" before a refusal opens it; it claims nothing.
        return [
            claim
            for clause, facts in clauses
            if not refuses_whole(clause) and not is_lead_in(clause)
            for claim in facts
            if not is_refusal(claim) and not is_lead_in(claim)
        ]
    if claims or not _YES_NO.match(answer) or not question.strip():
        return claims
    proposition = question.strip().rstrip("?？ ")
    reply = answer.strip().split()[0].strip(",.!;，。！")
    # The question is quoted as part of the claim, in its language and wording.
    return [f"{reply}: {proposition[:1].lower()}{proposition[1:]}"]


def forget_texts() -> None:
    """Empty the offline judge's memo caches (they refill as texts are judged again)."""
    for module in (_contradiction, _records, _text, _values, sys.modules[__name__]):
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


_OFFLINE = JudgeCapabilities()


class OfflineJudge:
    """A deterministic judge built from text heuristics; it never sends anything anywhere.

    Args:
        threshold: Weighted token coverage a claim needs to count as supported.
        citation_pattern: The configured ``citation_pattern`` (None: the default markers
            only), whose markers are left out of an answer's claims.
    """

    def __init__(
        self, threshold: float = SUPPORT_THRESHOLD, citation_pattern: str | None = None
    ) -> None:
        self._threshold = threshold
        self._markers = None if citation_pattern is None else re.compile(citation_pattern)

    @property
    def kind(self) -> str:
        """Always ``offline``."""
        return "offline"

    @property
    def model(self) -> str:
        """The heuristics' version, ``heuristic-v1``."""
        return "heuristic-v1"

    @property
    def capabilities(self) -> JudgeCapabilities:
        """None beyond answering: it sends nothing, so nothing is worth pairing or caching."""
        return _OFFLINE

    async def ask(
        self, request: JudgeRequest[ReplyT], *, context: AskContext = NO_CONTEXT
    ) -> Answer[ReplyT]:
        """Answer ``request`` at once; usage stays zero since nothing is sent."""
        # Round-trip through the reply model so the offline judge is held to the same
        # validation as the LLM judges.
        reply = request.parse_reply(self.answer(request).model_dump())
        return Answer(reply=reply, usage=Usage())

    async def embed(self, texts: Sequence[str], *, context: AskContext) -> Embedded:
        """The heuristics have no embeddings."""
        raise no_embeddings(self.kind)

    async def aclose(self) -> None:
        """Let go of the texts memoised while judging.

        A finished run's texts and their tokens, thousands of objects per 100 cases, would
        otherwise stay for the rest of the process, walked by every pass of the garbage
        collector (pytest makes a full one as the session ends).
        """
        forget_texts()

    def answer(self, request: JudgeRequest[Any]) -> BaseModel:
        """Answer ``request`` synchronously (the benchmark uses this directly).

        Raises:
            JudgeError: When the request type is not one the offline judge knows.
        """
        if isinstance(request, ExtractClaims):
            return Claims(claims=extract_claims(request.question, request.answer, self._markers))
        if isinstance(request, VerifyClaims):
            return self._verify(request)
        if isinstance(request, AttributeStatements):
            return self._attribute_statements(request)
        if isinstance(request, ClassifyCorrectness):
            return self._classify(request)
        if isinstance(request, RateRelevancy):
            return _rate_relevancy(request)
        if isinstance(request, GenerateQuestions):
            return _generate_questions(request)
        if isinstance(request, JudgeChunks):
            return _judge_chunks(request)
        if isinstance(request, ReviewContexts):
            return self._review_contexts(request)
        if isinstance(request, ReviewCase):
            return self._review_case(request)
        if isinstance(request, AttributeAnswer):
            return _attribute_answer(request)
        if isinstance(request, VerifyCitations):
            return self._verify_citations(request)
        if request.kind == "compare_answers":
            # Only pairwise judging asks this: its models load with the request, not here.
            from ..compare import CompareAnswers

            if isinstance(request, CompareAnswers):
                return self._compare(request)
        kind = getattr(request, "kind", type(request).__name__)
        raise JudgeError(
            f"The offline judge cannot answer a {kind!r} request; use an LLM judge for it."
        )

    def _verify(self, request: VerifyClaims) -> ClaimVerdicts:
        evidence = Evidence.of(request.contexts)
        has_record = any(read_record(context) is not None for context in request.contexts)
        verdicts = []
        for claim in request.claims:
            support = check_support(claim, evidence, self._threshold)
            # Only a claim's missing value, a record's yes/no field or a denial of what a
            # context sentence states can contradict it.
            contradiction = (
                find_contradiction(claim, request.contexts, evidence.numbers)
                if support.missing_numbers or has_record or negation_cues(claim)
                else None
            )
            if contradiction is not None:
                verdict = ClaimVerdict(
                    claim=claim, verdict="contradicted", reason=f"contradicted: {contradiction}"
                )
            elif (
                support.supported
                # A record's yes/no fields carry its negations ("WiFi": "no").
                and not has_record
                and negation_cues(claim)
                and _only_denial_missing(support, negation_cues(claim))
                and not denial_stated(request.contexts)
            ):
                # The claim's "not" is the word that matters, and no context denies anything
                # of the kind: the words it shares with a positive sentence support nothing.
                cue = sorted(negation_cues(claim))[0]
                verdict = ClaimVerdict(
                    claim=claim,
                    verdict="not_in_context",
                    reason=f"not supported: no context states the claim's {cue!r}",
                )
            else:
                verdict = ClaimVerdict(
                    claim=claim,
                    verdict="supported" if support.supported else "not_in_context",
                    reason=support.reason,
                )
            verdicts.append(verdict)
        return ClaimVerdicts(verdicts=_with_retention(verdicts, request))

    def _verify_citations(self, request: VerifyCitations) -> CitationVerdicts:
        # A sentence is factual when claim extraction finds a claim in it; a cited context
        # supports it by the same coverage test as a claim against all the contexts.
        verdicts = []
        for index, (sentence, cited) in enumerate(
            zip(request.sentences, request.cited, strict=True)
        ):
            factual = bool(extract_claims("", sentence, self._markers))
            supporting = []
            reasons = []
            for rank in cited:
                support = check_support(
                    sentence, Evidence.of([request.contexts[rank]]), self._threshold
                )
                if support.supported:
                    supporting.append(rank)
                reasons.append(f"context {rank}: {support.reason}")
            verdicts.append(
                SentenceCitations(
                    index=index,
                    factual=factual,
                    supporting=supporting,
                    reason="; ".join(reasons) or "cites no context",
                )
            )
        return CitationVerdicts(sentences=verdicts)

    def _attribute_statements(self, request: AttributeStatements) -> StatementVerdicts:
        evidence = Evidence.of(request.contexts)
        verdicts = []
        for statement in split_claims(request.reference):
            support = check_support(statement, evidence, self._threshold)
            verdicts.append(
                StatementVerdict(
                    statement=statement, attributed=support.supported, reason=support.reason
                )
            )
        return StatementVerdicts(verdicts=verdicts)

    def _review_contexts(self, request: ReviewContexts) -> ContextReview:
        chunks = _judge_chunks(
            JudgeChunks(
                question=request.question,
                target=request.reference,
                against="reference",
                chunks=request.contexts,
            )
        )
        statements = self._attribute_statements(
            AttributeStatements(
                question=request.question,
                reference=request.reference,
                contexts=request.contexts,
            )
        )
        return ContextReview(chunks=chunks.verdicts, statements=statements.verdicts)

    def _review_case(self, request: ReviewCase) -> CaseReview:
        verdicts = self._verify(
            VerifyClaims(claims=request.claims, contexts=request.contexts, history=request.history)
        )
        review = self._review_contexts(
            ReviewContexts(
                question=request.question, reference=request.reference, contexts=request.contexts
            )
        )
        return CaseReview(
            verdicts=verdicts.verdicts, chunks=review.chunks, statements=review.statements
        )

    def _compare(self, request: CompareAnswers) -> Comparison:
        """Prefer the answer whose own verdicts score better; near-equal ones tie.

        Each answer is scored as the per-answer requests would score it: the share of its
        claims the contexts support (a contradicted claim counts against it), the share of
        the reference's statements it covers, and its relevancy rating. The scores do not
        depend on the position, so the offline judge is position-consistent by design.
        """
        from ..compare import Comparison

        a = self._answer_quality(request, request.answer_a)
        b = self._answer_quality(request, request.answer_b)
        shown = f"A {_figures(a)}; B {_figures(b)}"
        if abs(a.total - b.total) < COMPARE_TIE_MARGIN:
            return Comparison(better="tie", reason=f"tie within {COMPARE_TIE_MARGIN}: {shown}")
        return Comparison(better="A" if a.total > b.total else "B", reason=shown)

    def _answer_quality(self, request: CompareAnswers, answer: str) -> _Quality:
        claims = extract_claims(request.question, answer, self._markers)
        faithfulness = None
        if claims:
            verdicts = self._verify(VerifyClaims(claims=claims, contexts=request.contexts))
            points = [
                1.0 if v.supported else -1.0 if v.contradicted else 0.0 for v in verdicts.verdicts
            ]
            faithfulness = max(0.0, sum(points) / len(points))
        completeness = None
        if request.reference is not None:
            statements = split_claims(request.reference)
            if statements:
                covered = Evidence.of([answer])
                found = [check_support(s, covered, self._threshold).supported for s in statements]
                completeness = sum(found) / len(found)
        rating = _rate_relevancy(
            RateRelevancy(question=request.question, answer=answer, history=request.history)
        )
        relevance = (rating.rating - 1) / 4
        return _Quality(faithfulness, completeness, relevance)

    def _classify(self, request: ClassifyCorrectness) -> CorrectnessClasses:
        reference = Evidence.of([request.reference])
        answer = Evidence.of(request.answer_claims)
        classes = CorrectnessClasses()
        for claim in request.answer_claims:
            support = check_support(claim, reference, self._threshold)
            target = classes.tp if support.supported else classes.fp
            target.append(CorrectnessItem(statement=claim, reason=support.reason))
        for statement in split_claims(request.reference):
            support = check_support(statement, answer, self._threshold)
            if not support.supported:
                reason = support.reason.replace("the contexts", "the answer")
                classes.fn.append(CorrectnessItem(statement=statement, reason=reason))
        return classes


COMPARE_TIE_MARGIN = 0.05
"""Two answers whose scores differ by less than this tie (the same facts, other words)."""


@dataclass(frozen=True)
class _Quality:
    """One answer's scores in a comparison; None where nothing could be scored."""

    faithfulness: float | None
    completeness: float | None
    relevance: float

    @property
    def total(self) -> float:
        """The mean of the scores there are; faithfulness weighs double."""
        parts = [self.relevance]
        if self.faithfulness is not None:
            parts += [self.faithfulness, self.faithfulness]
        if self.completeness is not None:
            parts.append(self.completeness)
        return sum(parts) / len(parts)


def _figures(quality: _Quality) -> str:
    def shown(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    return (
        f"(faithfulness {shown(quality.faithfulness)}, completeness "
        f"{shown(quality.completeness)}, relevance {quality.relevance:.2f})"
    )


_QUESTION_CUES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("when", "what year", "which year", "什么时候", "何时", "哪一年", "哪年", "几月"), "date"),
    (
        ("how many", "how much", "how old", "how long", "多少", "几个", "几岁", "多大", "多长"),
        "number",
    ),
)


def _answer_has(kind: str, answer: str) -> bool:
    if kind in ("date", "number"):
        return bool(numbers(answer) or number_words(answer))
    return False


def _addresses(evidence: Evidence, token: str) -> bool:
    """Whether an answer (or chunk) takes up a word of the question.

    Looser than support: the light stemmer keeps "store" but cuts "stored" to "stor",
    and for relevance a silent e apart they are one word.
    """
    if evidence.covers(token):
        return True
    if not (token.isascii() and token.isalpha() and len(token) >= 3):
        return False
    return evidence.covers(token + "e") or (token.endswith("e") and evidence.covers(token[:-1]))


def _asked(question: str) -> list[Token]:
    """The question's content tokens, less the asker.

    "Where is my data stored?" is answered by "Your data is stored …" or by "… store
    data in the EU", never by an answer in the first person.
    """
    return [token for token in content_tokens(question) if token.text != SPEAKER_TOKEN]


def _with_retention(verdicts: list[ClaimVerdict], request: VerifyClaims) -> list[ClaimVerdict]:
    """Mark the claims an earlier assistant turn plainly contradicts.

    Plainly: one earlier turn holds every word of the claim but gives another value for
    it ("costs 15 dollars" after "costs 10 dollars"). A claim about something else that
    merely carries another number ("the Max plan has 10 TB" after "the Pro plan has 2 TB")
    lacks some of the words, so it is not marked.
    """
    said = [turn.content for turn in request.history if turn.role == "assistant"]
    if not said:
        return verdicts
    marked = []
    for verdict in verdicts:
        earlier = None
        for text in said:
            evidence = Evidence.of([text])
            support = check_support(verdict.claim, evidence)
            if support.missing_numbers and not support.missing_tokens:
                earlier = find_contradiction(verdict.claim, [text], evidence.numbers)
            if earlier is not None:
                break
        if earlier is not None:
            verdict = verdict.model_copy(
                update={
                    "contradicts_history": True,
                    "reason": f"{verdict.reason}; an earlier turn said otherwise: {earlier}",
                }
            )
        marked.append(verdict)
    return marked


def _rate_relevancy(request: RateRelevancy) -> RelevancyRating:
    """The rubric rating; a follow-up is also read with the user turn before it.

    A follow-up ("and the second one?") leaves its topic to the earlier turn, so with a
    history the question is rated a second time with the last user turn's words added,
    and the better reading counts: the history can only explain an answer, not fault it.
    """
    alone = _rate_one(request.question, request.answer)
    asked = [turn.content for turn in request.history if turn.role == "user"]
    if not asked or alone.noncommittal:
        return alone
    read_with_history = _rate_one(f"{asked[-1]} {request.question}", request.answer)
    if read_with_history.rating <= alone.rating:
        return alone
    reason = f"{read_with_history.reason} (read with the previous user turn)"
    return read_with_history.model_copy(update={"reason": reason})


def _rate_one(question: str, answer: str) -> RelevancyRating:
    request = RateRelevancy(question=question, answer=answer)
    if not request.answer.strip() or is_noncommittal(request.answer):
        return RelevancyRating(
            rating=1, noncommittal=True, reason="the answer is noncommittal or empty"
        )
    question_tokens = _asked(request.question)
    evidence = Evidence.of([request.answer])
    overlap, missing = _weighted_coverage(question_tokens, evidence, _addresses)
    lowered = request.question.lower()
    cue_met = any(
        any(cue in lowered for cue in cues) and _answer_has(kind, request.answer)
        for cues, kind in _QUESTION_CUES
    )
    score = overlap + (0.3 if cue_met else 0.0)
    if not question_tokens:
        rating = 3
    elif score >= 0.8:
        rating = 5
    elif score >= 0.55:
        rating = 4
    elif score >= 0.3:
        rating = 3
    elif score > 0.0:
        rating = 2
    else:
        rating = 1
    reason = f"the answer covers {overlap:.0%} of the question's content words"
    if cue_met:
        reason += " and gives the kind of value asked for"
    if missing:
        reason += "; not addressed: " + ", ".join(missing[:_MAX_REASON_ITEMS])
    return RelevancyRating(rating=rating, noncommittal=False, reason=reason)


def _as_question(sentence: str) -> str:
    body = sentence.rstrip(" .!?。！？；;")
    if any(char >= "\u3040" for char in body[:4]):
        return f"{body}吗？"
    return f"Is it true that {body[:1].lower()}{body[1:]}?"


def _generate_questions(request: GenerateQuestions) -> GeneratedQuestions:
    noncommittal = is_noncommittal(request.answer)
    sentences = split_claims(request.answer) or split_sentences(request.answer)
    count = max(request.count, 0)
    if not sentences:
        return GeneratedQuestions(questions=[], noncommittal=noncommittal)
    # Cycle the answer's sentences so exactly ``count`` questions come back.
    questions = [_as_question(sentences[index % len(sentences)]) for index in range(count)]
    return GeneratedQuestions(questions=questions, noncommittal=noncommittal)


def _judge_chunks(request: JudgeChunks) -> ChunkVerdicts:
    asked = request.against == "question"
    target_tokens = _asked(request.target) if asked else content_tokens(request.target)
    target_numbers = numbers(request.target)
    covers = _addresses if asked else Evidence.covers
    verdicts = []
    for index, chunk in enumerate(request.chunks):
        evidence = Evidence.of([chunk])
        coverage, _ = _weighted_coverage(target_tokens, evidence, covers)
        if target_numbers:
            found = len(target_numbers & evidence.numbers) / len(target_numbers)
            coverage = (coverage * len(target_tokens) + found * len(target_numbers)) / (
                len(target_tokens) + len(target_numbers)
            )
        relevant = bool(target_tokens or target_numbers) and coverage >= CHUNK_RELEVANCE_THRESHOLD
        verdicts.append(
            ChunkVerdict(
                index=index,
                relevant=relevant,
                reason=f"covers {coverage:.0%} of the {request.against}'s content",
            )
        )
    return ChunkVerdicts(verdicts=verdicts)


def _attribute_answer(request: AttributeAnswer) -> DocumentUsage:
    answer_tokens = content_tokens(request.answer)
    used: list[int] = []
    shares: list[str] = []
    for index, context in enumerate(request.contexts):
        coverage, _ = _weighted_coverage(answer_tokens, Evidence.of([context]))
        if answer_tokens and coverage >= DOCUMENT_USE_THRESHOLD:
            used.append(index)
        # Ranks from 1, as the metric's summary and details name them; the indices of the
        # reply stay 0-based, as the request defines them.
        shares.append(f"#{index + 1} {coverage:.0%}" if answer_tokens else f"#{index + 1} -")
    return DocumentUsage(
        used_documents=used,
        reason="share of the answer's content per document by rank: " + ", ".join(shares),
    )
