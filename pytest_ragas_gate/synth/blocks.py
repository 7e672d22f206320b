"""A document's blocks: headings and paragraphs in reading order, each reader's output."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Block"]


@dataclass(frozen=True)
class Block:
    """A heading or a paragraph of a document, in reading order.

    ``skip`` names the non-prose kind of a block left out of the chunks (``code``,
    ``licence`` …), None for prose.
    """

    text: str
    heading: bool = False
    skip: str | None = None
    level: int = 0
