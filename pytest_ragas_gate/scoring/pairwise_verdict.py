"""One case's head-to-head result against the baseline's answer, as a case result keeps it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..model_defaults import empty_list

__all__ = ["PairwiseOutcome", "PairwiseVerdict", "PreferenceSeen"]

#: The new answer against the baseline's: better, worse, neither (both positions say so),
#: or undecided (the judgement changed when the answers swapped places).
PairwiseOutcome = Literal["win", "loss", "tie", "undecided"]

#: What the judge said in one position, read from the new answer's side.
PreferenceSeen = Literal["new", "baseline", "tie"]


class PairwiseVerdict(BaseModel):
    """The new answer of a case judged against the baseline's answer to it.

    ``seen`` holds what the judge preferred in each position (the new answer shown
    first, then second); a judgement that changes with the position is ``undecided``
    (not a tie: the judge did not say the answers are alike, it followed their order),
    and ``consistent`` says whether the two agreed. An unchanged answer is a tie without a
    judge call (``changed`` False, ``seen`` empty). ``error`` is set when the judge gave
    no usable answer: the case was not compared.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    outcome: PairwiseOutcome
    changed: bool
    seen: list[PreferenceSeen] = Field(default_factory=empty_list)
    consistent: bool | None = None
    reasons: list[str] = Field(default_factory=empty_list)
    # The baseline's answer, kept for a changed case so reports show both side by side.
    baseline_answer: str | None = None
    error: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _flip_is_undecided(cls, data: object) -> object:
        # Reports written before ``undecided`` existed called a flip a tie; read alike.
        if (
            isinstance(data, dict)
            and data.get("outcome") == "tie"
            and data.get("consistent") is False
        ):
            return {**data, "outcome": "undecided"}
        return data
