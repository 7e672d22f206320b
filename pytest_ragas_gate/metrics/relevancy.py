"""Answer relevancy: does the answer address the question that was asked."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from statistics import fmean
from typing import Any

from ..exceptions import ConfigError, JudgeError, JudgeReplyError
from ..golden.cases import GoldenCase
from ..judges.base import CaseJudge
from ..judges.requests import GenerateQuestions, RateRelevancy
from ._case_fields import required_text
from .base import Metric, MetricResult, Stage
from .formulas import cosine_similarity, normalised_rating

Embedder = Callable[[list[str]], Awaitable[list[list[float]]]]
"""Embeds a batch of texts, one vector per text, in order."""


class JudgeEmbeddings:
    """The embedder that embeds through the case's judge: the run's, with its cache and budgets.

    The metric asks the judge it is handed, so a case's embedding calls are charged to
    the metric that made them, like its requests.
    """

    async def __call__(self, texts: list[str]) -> list[list[float]]:
        """Only the case's judge embeds: an embedder called on its own has none."""
        raise JudgeError(
            "The reverse_questions answer relevancy strategy embeds through the case's "
            "judge, and none was given; this is a bug in pytest-ragas-gate."
        )


RELEVANCY_STRATEGIES: tuple[str, ...] = ("judge", "reverse_questions")
REVERSE_QUESTION_COUNT = 3


class AnswerRelevancy(Metric):
    """How directly the answer addresses the question, by one of two strategies.

    ``judge`` (an LLM-as-judge rubric): the judge rates the answer 1-5 and the score is
    ``(rating - 1) / 4``. ``reverse_questions`` (answer relevance as the RAGAS paper, Es et
    al. 2023, defines it): the judge writes three
    questions the answer would answer, and the score is the mean cosine similarity of
    their embeddings with the question's. Under both, a noncommittal answer ("I don't
    know") scores 0.0: it is a real failure to answer, not an absence of one.
    """

    name: str = "answer_relevancy"
    required_fields: tuple[str, ...] = ("question", "answer")
    judge_requests: tuple[str, ...] | None = ("rate_relevancy", "generate_questions")
    default_threshold: float | None = 0.75
    stage: Stage = "generation"
    hint: str = (
        "Prompt the generator to answer the question directly, improve query understanding "
        "of the user's intent, and trim redundant content from answers."
    )

    def __init__(self, strategy: str = "judge", embedder: Embedder | None = None) -> None:
        """Choose the strategy.

        Args:
            strategy: ``judge`` or ``reverse_questions``.
            embedder: Needed by ``reverse_questions``; ignored by ``judge``.

        Raises:
            ConfigError: On an unknown strategy, or ``reverse_questions`` without an
                embedder.
        """
        if strategy not in RELEVANCY_STRATEGIES:
            raise ConfigError(
                f"answer_relevancy_strategy is {strategy!r}; expected one of "
                f"{', '.join(map(repr, RELEVANCY_STRATEGIES))}."
            )
        if strategy == "reverse_questions" and embedder is None:
            raise ConfigError(
                "answer_relevancy_strategy 'reverse_questions' compares question embeddings "
                "and no embedder is configured; set embedding_model in the rag-gate config, "
                "or use answer_relevancy_strategy 'judge'."
            )
        self.strategy = strategy
        self.embedder = embedder

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case with the configured strategy."""
        answer = required_text(case, "answer", self.name)
        if self.strategy == "reverse_questions":
            return await self._score_by_reverse_questions(case, answer, judge)
        return await self._score_by_rating(case, answer, judge)

    async def _score_by_rating(
        self, case: GoldenCase, answer: str, judge: CaseJudge
    ) -> MetricResult:
        reply = await judge.ask(
            RateRelevancy(question=case.question, answer=answer, history=case.history)
        )
        details: list[dict[str, Any]] = [
            {"rating": reply.rating, "noncommittal": reply.noncommittal, "reason": reply.reason}
        ]
        if reply.noncommittal:
            return MetricResult(score=0.0, details=details, reason="the answer is noncommittal")
        return MetricResult(
            score=normalised_rating(reply.rating),
            details=details,
            reason=f"rated {reply.rating} of 5",
        )

    async def _score_by_reverse_questions(
        self, case: GoldenCase, answer: str, judge: CaseJudge
    ) -> MetricResult:
        assert self.embedder is not None  # the constructor refuses this strategy without one
        reply = await judge.ask(GenerateQuestions(answer=answer, count=REVERSE_QUESTION_COUNT))
        questions = [question.strip() for question in reply.questions if question.strip()]
        if reply.noncommittal:
            details: list[dict[str, Any]] = [
                {"question": question, "similarity": None} for question in questions
            ]
            return MetricResult(score=0.0, details=details, reason="the answer is noncommittal")
        if not questions:
            raise JudgeReplyError(
                f"The judge wrote no questions in {GenerateQuestions.kind} for case "
                f"{case.id!r} ({case.source}) and did not call the answer noncommittal; "
                "the reply cannot be scored."
            )
        texts = [case.question, *questions]
        if isinstance(self.embedder, JudgeEmbeddings):
            embeddings = await judge.embed(texts)
        else:
            embeddings = await self.embedder(texts)
        if len(embeddings) != len(questions) + 1:
            raise JudgeError(
                f"The embedder returned {len(embeddings)} vector(s) for "
                f"{len(questions) + 1} text(s) for case {case.id!r} ({case.source}); "
                "it must return one vector per text, in order."
            )
        question_embedding, *generated_embeddings = embeddings
        similarities = [
            cosine_similarity(question_embedding, embedding) for embedding in generated_embeddings
        ]
        details = [
            {"question": question, "similarity": similarity}
            for question, similarity in zip(questions, similarities, strict=True)
        ]
        # Scores live in [0, 1]; an anti-correlated question is no more relevant than an
        # unrelated (orthogonal) one.
        score = max(0.0, fmean(similarities))
        return MetricResult(
            score=score,
            details=details,
            reason=(
                f"mean similarity {score:.2f} of {len(questions)} generated questions "
                "with the question"
            ),
        )
