"""The requests a metric can put to a judge, and the replies it gets back.

Every judge (offline, Anthropic, OpenAI-compatible) answers the same requests with the
same reply models, so metrics never depend on which judge runs. A reply carries per-item
verdicts only; scores are computed by the metrics from them.

A reply is valid when it fits its model *and* its request (one verdict per claim, every
chunk index exactly once, document indexes in range): :meth:`JudgeRequest.parse_reply`
checks both, so a reply a metric could not score is re-asked, never cached, and a cached
one that fails is a miss.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from ..golden.cases import Message
from ..model_defaults import empty_list

ReplyT = TypeVar("ReplyT", bound=BaseModel)


class JudgeRequest(BaseModel, Generic[ReplyT]):
    """Base of every request; ``kind`` names it in prompts, cache keys and reports."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ClassVar[str]
    reply_type: ClassVar[type[BaseModel]]

    if not TYPE_CHECKING:

        def __class_getitem__(cls, reply: Any) -> type[JudgeRequest[Any]]:
            # ``JudgeRequest[Claims]`` names the reply type for the type checker only: no
            # field depends on it (``reply_type`` says it at run time), and letting pydantic
            # build a parametrised class for each request would cost every run, judge or
            # none, a model build apiece for nothing.
            return cls

    @model_serializer(mode="wrap")
    def _without_empty_history(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Field(exclude_if=...) would say this, but only from pydantic 2.12 on.
        data = handler(self)
        if isinstance(data, dict) and data.get("history") == []:
            del data["history"]
        return data

    def parse_reply(self, data: object) -> ReplyT:
        """Validate a raw reply against the reply model and this request.

        Raises:
            pydantic.ValidationError: The reply does not fit the reply model.
            ReplyMismatch: It fits the model but not this request (say, a verdict count
                other than the claim count), so no metric could score it.
        """
        reply: ReplyT = self.reply_type.model_validate(data)  # type: ignore[assignment]
        problem = self.reply_problem(reply)
        if problem is not None:
            raise ReplyMismatch(problem)
        return reply

    def reply_problem(self, reply: ReplyT) -> str | None:
        """What keeps a schema-valid ``reply`` from answering this request (None: nothing).

        The message names counts and indexes only, never the reply's text, since it is
        sent back to the model in a re-ask.
        """
        return None

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """The reply's top-level arrays whose length this request knows: field: (min, max).

        ``max`` None leaves the array open above ``min``.

        Sent as ``minItems`` / ``maxItems`` to a server that constrains decoding to the
        schema (:mod:`.reply_bounds`), so a small model cannot give three verdicts for two
        claims; :meth:`reply_problem` still checks every reply.
        """
        return {}

    def text_limits(self) -> dict[str, int]:
        """The longest text this request's reply needs per field name, in characters.

        A claim or statement restates part of the text it comes from, so that text's
        length (plus room for a resolved "it") bounds it; sent as ``maxLength``.
        """
        return {}


class ReplyMismatch(ValueError):
    """A reply that fits its schema but not its request: re-asked, never cached."""


def _index_problem(indexes: list[int], count: int, what: str) -> str | None:
    """Whether ``indexes`` name each of ``count`` items exactly once.

    >>> _index_problem([0, 2, 2], 2, "chunk")
    'it gives verdicts for chunk index(es) 0, 2, 2 of 2 chunk(s): index 1 is missing, 2 is out of range, 2 appears twice; give exactly one verdict per chunk, indexes 0 to 1'
    """  # noqa: E501
    seen = set(indexes)
    missing = sorted(set(range(count)) - seen)
    out_of_range = sorted(index for index in seen if not 0 <= index < count)
    twice = sorted(index for index in seen if indexes.count(index) > 1)
    if not (missing or out_of_range or twice):
        return None
    found = [
        f"{label} {', '.join(map(str, values))} {verb}"
        for label, values, verb in (
            ("index", missing, "is missing"),
            ("", out_of_range, "is out of range"),
            ("", twice, "appears twice"),
        )
        if values
    ]
    listed = ", ".join(map(str, indexes)) or "none"
    return (
        f"it gives verdicts for {what} index(es) {listed} of {count} {what}(s): "
        f"{', '.join(part.strip() for part in found)}; give exactly one verdict per {what}, "
        f"indexes 0 to {count - 1}"
    )


def _statements_at_least(reference: str) -> tuple[int, int]:
    """A reference with any text has one statement or more (recall has something to count).

    >>> _statements_at_least("Refunds take five business days."), _statements_at_least(" ")
    ((1, 1), (0, 1))
    """
    return (1 if reference.strip() else 0, _most_statements(reference))


#: Room for a restated text to grow: a pronoun resolved to the name it stands for.
_RESTATE_SLACK = 40


def _restated(*texts: str) -> int:
    """The longest restatement of any of ``texts``: the longest one plus some slack."""
    return max((len(text) for text in texts), default=0) + _RESTATE_SLACK


def _most_statements(text: str) -> int:
    """At most one atomic statement per three words (subject, verb, object) of ``text``.

    >>> _most_statements("Refunds take five business days."), _most_statements("")
    (1, 1)
    """
    return max(1, len(text.split()) // 3)


def _no_history() -> Any:
    # Left out of a dump when empty (JudgeRequest's serializer), so a single-turn request
    # dumps, and so caches, exactly as before conversations existed.
    return Field(default_factory=empty_list)


#: For the models of requests a plain run rarely or never asks (question generation, the
#: paired case review, citations): pydantic builds their validators when one is first used,
#: not on every run that imports this module. Their schemas are the same either way.
_BUILT_ON_FIRST_USE = ConfigDict(defer_build=True)


class Reply(BaseModel):
    """Base of every reply model."""

    model_config = ConfigDict(extra="ignore")


# --- claims -------------------------------------------------------------------------------


class Claims(Reply):
    """Atomic, self-contained factual claims, in the language of the input text."""

    claims: list[str]


class ExtractClaims(JudgeRequest[Claims]):
    """Split an answer into atomic factual claims (faithfulness, answer correctness)."""

    kind: ClassVar[str] = "extract_claims"
    reply_type: ClassVar[type[BaseModel]] = Claims

    question: str
    answer: str
    #: A conversation's earlier turns, so "it" resolves to what they named.
    history: list[Message] = _no_history()

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """No more claims than the answer has room for."""
        return {"claims": (0, _most_statements(self.answer))}

    def text_limits(self) -> dict[str, int]:
        """A claim restates part of the answer."""
        return {"claims": _restated(self.answer)}


#: A claim's verdict against the contexts. A *contradicted* claim (the contexts say
#: otherwise: another number, date or name) is worse than one that is merely not there.
ClaimStatus = Literal["supported", "contradicted", "not_in_context"]


class ClaimVerdict(Reply):
    """Whether one claim can be inferred from the contexts, is contradicted, or is absent.

    >>> ClaimVerdict(claim="x", verdict="contradicted").supported
    False
    >>> ClaimVerdict.model_validate({"claim": "x", "supported": True}).verdict
    'supported'
    """

    claim: str
    verdict: ClaimStatus
    reason: str = ""
    #: With a conversation's history: the claim contradicts what the assistant said in it.
    contradicts_history: bool = False

    @model_validator(mode="before")
    @classmethod
    def _two_way_verdict(cls, data: Any) -> Any:
        # Replies and report details written before the three-way verdict carry a
        # boolean ``supported``; it cannot tell contradicted from absent.
        if isinstance(data, dict) and "verdict" not in data:
            supported = data.get("supported")
            if isinstance(supported, bool):
                verdict = "supported" if supported else "not_in_context"
                return {**data, "verdict": verdict}
        return data

    @property
    def supported(self) -> bool:
        """True when the contexts imply the claim."""
        return self.verdict == "supported"

    @property
    def contradicted(self) -> bool:
        """True when the contexts say otherwise."""
        return self.verdict == "contradicted"


class ClaimVerdicts(Reply):
    """One verdict per claim, in the order the claims were given."""

    verdicts: list[ClaimVerdict]


class VerifyClaims(JudgeRequest[ClaimVerdicts]):
    """Check every claim against the retrieved contexts in one request (faithfulness)."""

    kind: ClassVar[str] = "verify_claims"
    reply_type: ClassVar[type[BaseModel]] = ClaimVerdicts

    claims: list[str]
    contexts: list[str]
    #: A conversation's earlier turns: each verdict also says whether the claim
    #: contradicts what the assistant said there (knowledge retention), in this request.
    history: list[Message] = _no_history()

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """One verdict per claim."""
        return {"verdicts": (len(self.claims), len(self.claims))}

    def text_limits(self) -> dict[str, int]:
        """A verdict repeats its claim."""
        return {"claim": _restated(*self.claims)}

    def reply_problem(self, reply: ClaimVerdicts) -> str | None:
        """Verdicts pair with claims by position, so the counts must match."""
        if len(reply.verdicts) == len(self.claims):
            return None
        return (
            f"it gives {len(reply.verdicts)} verdict(s) for {len(self.claims)} claim(s); "
            "give exactly one verdict per claim, in the order given"
        )


# --- reference statements -----------------------------------------------------------------


class StatementVerdict(Reply):
    """Whether one statement of the reference can be attributed to the contexts."""

    statement: str
    attributed: bool
    reason: str = ""


class StatementVerdicts(Reply):
    """The reference split into statements, each with its attribution verdict."""

    verdicts: list[StatementVerdict]


class AttributeStatements(JudgeRequest[StatementVerdicts]):
    """Split the reference into statements and attribute each to the contexts (recall)."""

    kind: ClassVar[str] = "attribute_statements"
    reply_type: ClassVar[type[BaseModel]] = StatementVerdicts

    question: str
    reference: str
    contexts: list[str]

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """A reference with any text states one thing or more, one per three words at most."""
        return {"verdicts": _statements_at_least(self.reference)}

    def text_limits(self) -> dict[str, int]:
        """A statement restates part of the reference."""
        return {"statement": _restated(self.reference)}


# --- answer correctness -------------------------------------------------------------------


class CorrectnessItem(Reply):
    """One statement placed in a TP / FP / FN class, with why."""

    statement: str
    reason: str = ""


class CorrectnessClasses(Reply):
    """Answer claims and reference statements sorted into TP / FP / FN.

    TP: answer claims backed by the reference; FP: answer claims not in it; FN: reference
    statements the answer misses.
    """

    tp: list[CorrectnessItem] = Field(default_factory=empty_list)
    fp: list[CorrectnessItem] = Field(default_factory=empty_list)
    fn: list[CorrectnessItem] = Field(default_factory=empty_list)


class ClassifyCorrectness(JudgeRequest[CorrectnessClasses]):
    """Classify the answer's claims and the reference's statements as TP / FP / FN."""

    kind: ClassVar[str] = "classify_correctness"
    reply_type: ClassVar[type[BaseModel]] = CorrectnessClasses

    question: str
    answer_claims: list[str]
    reference: str


# --- answer relevancy ---------------------------------------------------------------------


class RelevancyRating(Reply):
    """A 1-5 rubric rating of how directly the answer addresses the question."""

    rating: int = Field(ge=1, le=5)
    noncommittal: bool = False
    reason: str = ""


class RateRelevancy(JudgeRequest[RelevancyRating]):
    """Rate the answer against the question on the 1-5 rubric (answer_relevancy, ``judge``)."""

    kind: ClassVar[str] = "rate_relevancy"
    reply_type: ClassVar[type[BaseModel]] = RelevancyRating

    question: str
    answer: str
    #: A conversation's earlier turns: a follow-up question is read with them.
    history: list[Message] = _no_history()


class GeneratedQuestions(Reply):
    """Questions the answer would answer, and whether the answer is noncommittal."""

    model_config = _BUILT_ON_FIRST_USE

    questions: list[str]
    noncommittal: bool = False


class GenerateQuestions(JudgeRequest[GeneratedQuestions]):
    """Write ``count`` questions the answer would answer (reverse-questions relevancy)."""

    model_config = _BUILT_ON_FIRST_USE

    kind: ClassVar[str] = "generate_questions"
    reply_type: ClassVar[type[BaseModel]] = GeneratedQuestions

    answer: str
    count: int = 3

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """At least one question, at most ``count``."""
        return {"questions": (min(1, self.count), self.count)}

    def reply_problem(self, reply: GeneratedQuestions) -> str | None:
        """No question and not noncommittal: nothing to compare the question with."""
        if reply.noncommittal or any(question.strip() for question in reply.questions):
            return None
        return "it holds no question and does not call the answer noncommittal"


# --- retrieved chunks ---------------------------------------------------------------------


class ChunkVerdict(Reply):
    """Whether the chunk at ``index`` (0 = top-ranked) is relevant."""

    index: int = Field(ge=0)
    relevant: bool
    reason: str = ""


class ChunkVerdicts(Reply):
    """One verdict per retrieved chunk."""

    verdicts: list[ChunkVerdict]


class JudgeChunks(JudgeRequest[ChunkVerdicts]):
    """Judge every retrieved chunk's relevance in one request.

    ``against`` says what relevance is measured against: the reference answer (context
    precision when a reference exists) or the question.
    """

    kind: ClassVar[str] = "judge_chunks"
    reply_type: ClassVar[type[BaseModel]] = ChunkVerdicts

    question: str
    target: str
    against: Literal["reference", "question"]
    chunks: list[str]
    #: A conversation's earlier turns: a follow-up question is read with them.
    history: list[Message] = _no_history()

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """One verdict per chunk."""
        return {"verdicts": (len(self.chunks), len(self.chunks))}

    def reply_problem(self, reply: ChunkVerdicts) -> str | None:
        """Every chunk needs exactly one verdict."""
        return _index_problem([v.index for v in reply.verdicts], len(self.chunks), "chunk")


class ContextReview(Reply):
    """Per chunk, relevance to the reference; per reference statement, attribution."""

    chunks: list[ChunkVerdict]
    statements: list[StatementVerdict]


class ReviewContexts(JudgeRequest[ContextReview]):
    """Judge the chunks against the reference and attribute the reference to them.

    Context precision (with a reference) and context recall read the same question,
    reference and contexts, so they share this one request: the contexts are sent, and
    paid for, once per case instead of twice.
    """

    kind: ClassVar[str] = "review_contexts"
    reply_type: ClassVar[type[BaseModel]] = ContextReview

    question: str
    reference: str
    contexts: list[str]

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """One relevance verdict per chunk; a statement or more, as the reference holds."""
        return {
            "chunks": (len(self.contexts), len(self.contexts)),
            "statements": _statements_at_least(self.reference),
        }

    def text_limits(self) -> dict[str, int]:
        """A statement restates part of the reference."""
        return {"statement": _restated(self.reference)}

    def reply_problem(self, reply: ContextReview) -> str | None:
        """Every chunk needs exactly one relevance verdict."""
        return _index_problem([v.index for v in reply.chunks], len(self.contexts), "chunk")


class CaseReview(Reply):
    """A claim verification and a context review in one reply.

    Per claim its verdict; per chunk its relevance to the reference; per reference
    statement its attribution.
    """

    model_config = _BUILT_ON_FIRST_USE

    verdicts: list[ClaimVerdict]
    chunks: list[ChunkVerdict]
    statements: list[StatementVerdict]

    def claim_verdicts(self) -> ClaimVerdicts:
        """The part that answers the claim verification."""
        return ClaimVerdicts(verdicts=self.verdicts)

    def context_review(self) -> ContextReview:
        """The part that answers the context review."""
        return ContextReview(chunks=self.chunks, statements=self.statements)


class ReviewCase(JudgeRequest[CaseReview]):
    """Verify the answer's claims and review the contexts against the reference at once.

    Faithfulness (:class:`VerifyClaims`) and context precision and recall
    (:class:`ReviewContexts`) read the same retrieved contexts. When one case asks both,
    the scheduler sends this one request instead: the contexts, most of a case's tokens,
    are sent once and need no prompt-cache write. Its reply splits into the two replies
    the metrics asked for, so scores do not depend on whether it was used.
    """

    model_config = _BUILT_ON_FIRST_USE

    kind: ClassVar[str] = "review_case"
    reply_type: ClassVar[type[BaseModel]] = CaseReview

    question: str
    reference: str
    claims: list[str]
    contexts: list[str]
    #: A conversation's earlier turns, as the claim verification holds them.
    history: list[Message] = _no_history()

    @classmethod
    def of(cls, verify: VerifyClaims, review: ReviewContexts) -> ReviewCase:
        """The request answering both ``verify`` and ``review`` (same contexts)."""
        return cls(
            question=review.question,
            reference=review.reference,
            claims=verify.claims,
            contexts=review.contexts,
            history=verify.history,
        )

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """One verdict per claim and per chunk; a statement or more, as the reference holds."""
        return {
            "verdicts": (len(self.claims), len(self.claims)),
            "chunks": (len(self.contexts), len(self.contexts)),
            "statements": _statements_at_least(self.reference),
        }

    def text_limits(self) -> dict[str, int]:
        """A verdict repeats its claim; a statement restates part of the reference."""
        return {"claim": _restated(*self.claims), "statement": _restated(self.reference)}

    def reply_problem(self, reply: CaseReview) -> str | None:
        """One verdict per claim, in order, and one relevance verdict per chunk."""
        verify = VerifyClaims(claims=self.claims, contexts=self.contexts, history=self.history)
        review = ReviewContexts(
            question=self.question, reference=self.reference, contexts=self.contexts
        )
        return verify.reply_problem(reply.claim_verdicts()) or review.reply_problem(
            reply.context_review()
        )


class DocumentUsage(Reply):
    """Which retrieved documents (0-based rank) the answer draws on."""

    used_documents: list[int]
    reason: str = ""


class AttributeAnswer(JudgeRequest[DocumentUsage]):
    """Which retrieved documents the answer uses (the ``top_doc_usage`` alignment check)."""

    kind: ClassVar[str] = "attribute_answer"
    reply_type: ClassVar[type[BaseModel]] = DocumentUsage

    answer: str
    contexts: list[str]

    def reply_problem(self, reply: DocumentUsage) -> str | None:
        """A used document must be one of those retrieved."""
        outside = sorted({i for i in reply.used_documents if not 0 <= i < len(self.contexts)})
        if not outside:
            return None
        return (
            f"it names document index(es) {', '.join(map(str, outside))} but only "
            f"{len(self.contexts)} document(s) were given (0-based)"
        )


# --- citations ----------------------------------------------------------------------------


class SentenceCitations(Reply):
    """One answer sentence: whether it states a fact, and which of its cited contexts back it."""

    model_config = _BUILT_ON_FIRST_USE

    index: int = Field(ge=0)
    factual: bool
    supporting: list[int] = Field(default_factory=empty_list)
    reason: str = ""


class CitationVerdicts(Reply):
    """One entry per answer sentence."""

    model_config = _BUILT_ON_FIRST_USE

    sentences: list[SentenceCitations]


class VerifyCitations(JudgeRequest[CitationVerdicts]):
    """Check each answer sentence against the contexts it cites, in one request.

    ``cited[i]`` holds the 0-based ranks of the contexts sentence ``i`` cites (empty when
    it cites none); a sentence without citations still gets a verdict, since citation
    recall asks whether each factual sentence carries a supporting citation.
    """

    model_config = _BUILT_ON_FIRST_USE

    kind: ClassVar[str] = "verify_citations"
    reply_type: ClassVar[type[BaseModel]] = CitationVerdicts

    sentences: list[str]
    cited: list[list[int]]
    contexts: list[str]

    def item_counts(self) -> dict[str, tuple[int, int | None]]:
        """One entry per answer sentence."""
        return {"sentences": (len(self.sentences), len(self.sentences))}

    def reply_problem(self, reply: CitationVerdicts) -> str | None:
        """Every sentence once; a supporting context must be one the sentence cites."""
        problem = _index_problem(
            [v.index for v in reply.sentences], len(self.sentences), "sentence"
        )
        if problem is not None:
            return problem
        for verdict in reply.sentences:
            uncited = sorted(set(verdict.supporting) - set(self.cited[verdict.index]))
            if uncited:
                return (
                    f"sentence {verdict.index} names supporting context(s) "
                    f"{', '.join(map(str, uncited))} it does not cite; list only cited contexts"
                )
        return None


ALL_REQUEST_TYPES: tuple[type[JudgeRequest[Any]], ...] = (
    ExtractClaims,
    VerifyClaims,
    AttributeStatements,
    ClassifyCorrectness,
    RateRelevancy,
    GenerateQuestions,
    JudgeChunks,
    ReviewContexts,
    ReviewCase,
    AttributeAnswer,
    VerifyCitations,
)
