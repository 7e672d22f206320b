"""The requests a metric can put to a judge, and the replies it gets back.

Every judge (offline, Anthropic, OpenAI-compatible) answers the same requests with the
same reply models, so metrics never depend on which judge runs. A reply carries per-item
verdicts only; scores are computed by the metrics from them.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

ReplyT = TypeVar("ReplyT", bound=BaseModel)


class JudgeRequest(BaseModel, Generic[ReplyT]):
    """Base of every request; ``kind`` names it in prompts, cache keys and reports."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ClassVar[str]
    reply_type: ClassVar[type[BaseModel]]

    def parse_reply(self, data: object) -> ReplyT:
        """Validate a raw reply; raises ``pydantic.ValidationError`` when it does not fit."""
        reply: ReplyT = self.reply_type.model_validate(data)  # type: ignore[assignment]
        return reply


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

    tp: list[CorrectnessItem] = Field(default_factory=list)
    fp: list[CorrectnessItem] = Field(default_factory=list)
    fn: list[CorrectnessItem] = Field(default_factory=list)


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
    """Rate the answer against the question on the 1-5 rubric (seed 004, method 1)."""

    kind: ClassVar[str] = "rate_relevancy"
    reply_type: ClassVar[type[BaseModel]] = RelevancyRating

    question: str
    answer: str


class GeneratedQuestions(Reply):
    """Questions the answer would answer, and whether the answer is noncommittal."""

    questions: list[str]
    noncommittal: bool = False


class GenerateQuestions(JudgeRequest[GeneratedQuestions]):
    """Write ``count`` questions the answer would answer (reverse-questions relevancy)."""

    kind: ClassVar[str] = "generate_questions"
    reply_type: ClassVar[type[BaseModel]] = GeneratedQuestions

    answer: str
    count: int = 3


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


class DocumentUsage(Reply):
    """Which retrieved documents (0-based rank) the answer draws on."""

    used_documents: list[int]
    reason: str = ""


class AttributeAnswer(JudgeRequest[DocumentUsage]):
    """Which retrieved documents the answer uses (seed 003's alignment check)."""

    kind: ClassVar[str] = "attribute_answer"
    reply_type: ClassVar[type[BaseModel]] = DocumentUsage

    answer: str
    contexts: list[str]


ALL_REQUEST_TYPES: tuple[type[JudgeRequest[Any]], ...] = (
    ExtractClaims,
    VerifyClaims,
    AttributeStatements,
    ClassifyCorrectness,
    RateRelevancy,
    GenerateQuestions,
    JudgeChunks,
    ReviewContexts,
    AttributeAnswer,
)
