r"""Documents into chunks of about ``--chunk-tokens`` tokens, each with a stable id.

Chunks follow the document's structure: a heading starts a new chunk (and is kept as the
chunk's first line, so the chunk reads on its own), paragraphs are packed together up to
the target size, and a paragraph longer than the target is cut between sentences.

A chunk id is ``<document key>#<position>-<hash of the text>``, e.g.
``billing.md#3-a1b2c3``: re-running on unchanged documents gives the same ids, and a chunk
whose text changed gets a new id, so a golden case can never silently point at text it was
not written from.

>>> from pytest_ragas_gate.synth.documents import Document, markdown_blocks
>>> text = "# Plans\n\nThe Team plan has 2 TB per user.\n\n## Refunds\n\nRefunds take 14 days."
>>> document = Document("plans.md", "Plans", tuple(markdown_blocks(text)))
>>> for chunk in chunk_document(document, target_tokens=20):
...     print(chunk.id, repr(chunk.text))
plans.md#0-54a367 'Plans\nThe Team plan has 2 TB per user.'
plans.md#1-4f2ffc 'Refunds\nRefunds take 14 days.'
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..judges.offline.text import split_sentences
from .documents import Document
from .prose import chinese_share, is_chinese

__all__ = ["Chunk", "chunk_document", "chunk_documents", "estimate_tokens", "is_chinese"]

_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")

#: Chunks smaller than this share of the target are merged into the next one of their section.
_MIN_SHARE = 0.25


def estimate_tokens(text: str) -> int:
    """Tokens a BPE tokenizer spends on ``text``: one per CJK character, one per 4 others.

    >>> estimate_tokens("Apple was founded in 1976."), estimate_tokens("苹果公司成立于1976年。")
    (7, 10)
    """
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


@dataclass(frozen=True)
class Chunk:
    """A piece of a document, the unit that relevant_context_ids name.

    Attributes:
        id: the stable id (see the module docstring).
        document: the document's key.
        title: the document's title.
        position: the chunk's 0-based position in its document.
        text: the chunk text (its section heading first, when it has one).
        chinese: whether questions about it are Chinese: its document's language, unless
            the chunk itself is plainly in the other one (a mixed document).
    """

    id: str
    document: str
    title: str
    position: int
    text: str
    chinese: bool = False


def _chunk_id(document: str, position: int, text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]
    return f"{document}#{position}-{digest}"


def _pieces(paragraph: str, target_tokens: int) -> list[str]:
    """A paragraph, cut between sentences into pieces of at most about ``target_tokens``."""
    if estimate_tokens(paragraph) <= target_tokens:
        return [paragraph]
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    joiner = "" if is_chinese(paragraph) else " "
    for sentence in split_sentences(paragraph) or [paragraph]:
        tokens = estimate_tokens(sentence)
        if current and size + tokens > target_tokens:
            pieces.append(joiner.join(current))
            current, size = [], 0
        current.append(sentence)
        size += tokens
    if current:
        pieces.append(joiner.join(current))
    return pieces


def chunk_document(document: Document, *, target_tokens: int) -> list[Chunk]:
    """Cut one document into chunks of about ``target_tokens`` tokens."""
    texts: list[str] = []
    heading: str | None = None
    body: list[str] = []
    size = 0

    inner: str | None = None  # a short section's heading riding inside the body

    def flush() -> None:
        nonlocal size, heading, inner
        if body:
            texts.append("\n".join([heading, *body] if heading else body))
        body.clear()
        size = 0
        if inner is not None:
            # The chunk after continues the section that began inside this one.
            heading, inner = inner, None

    for block in document.prose:
        if block.heading:
            if size >= target_tokens * _MIN_SHARE or not body:
                flush()
                heading, inner = block.text, None
            else:
                # A short section rides with the next one instead of making a tiny chunk.
                body.append(block.text)
                inner = block.text
            continue
        for piece in _pieces(block.text, target_tokens):
            tokens = estimate_tokens(piece)
            if body and size + tokens > target_tokens:
                flush()
            body.append(piece)
            size += tokens
    flush()
    chinese = document.chinese
    return [
        Chunk(
            id=_chunk_id(document.key, position, text),
            document=document.key,
            title=document.title,
            position=position,
            text=text,
            chinese=_chunk_language(text, chinese),
        )
        for position, text in enumerate(texts)
    ]


def _chunk_language(text: str, document_chinese: bool) -> bool:
    """The document's language, unless the chunk is plainly in the other one."""
    share = chinese_share(text)
    return share >= 0.2 if document_chinese else share >= 0.8


def chunk_documents(documents: Sequence[Document], *, target_tokens: int) -> list[Chunk]:
    """Every document's chunks, documents in order."""
    return [
        chunk
        for document in documents
        for chunk in chunk_document(document, target_tokens=target_tokens)
    ]
