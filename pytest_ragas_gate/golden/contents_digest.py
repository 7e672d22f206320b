"""A digest of what a golden case asks and answers, for telling two versions of a case apart.

Shard reports are merged by case id; two shards run on different commits may hold the
same ids with different questions, answers, contexts, references or tool calls. Each run
records, for every case of its golden set, this digest of the case's contents, so a merge
can name the cases whose contents differ instead of joining them into one verdict.

The digest is short (64 bits): it tells accidental differences apart, it is no signature.

>>> case = GoldenCase(id="a", question="Who?", answer="Ada")
>>> contents_digest(case) == contents_digest(case.model_copy(update={"tags": ["x"]}))
True
>>> contents_digest(case) == contents_digest(case.model_copy(update={"answer": "Bob"}))
False
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from .cases import GoldenCase

__all__ = ["CONTENT_FIELDS", "DIGEST_CHARS", "contents_digest", "set_digest"]

#: The fields that make a case what it is; tags, thresholds and labels only gate it.
CONTENT_FIELDS = (
    "question",
    "answer",
    "contexts",
    "reference",
    "history",
    "tools_called",
    "expected_tools",
)
#: Hex characters of one case's digest.
DIGEST_CHARS = 16


def contents_digest(case: GoldenCase) -> str:
    """The digest of ``case``'s question, answer, contexts, reference and tool calls."""
    contents = case.model_dump(mode="json", include=set(CONTENT_FIELDS), by_alias=False)
    canonical = json.dumps(contents, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def set_digest(digests: Iterable[tuple[str, str]]) -> str:
    """One digest of ``(id, digest)`` pairs, in any order: a file's contents at a glance."""
    joined = "\n".join(f"{case_id}\t{digest}" for case_id, digest in sorted(digests))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()
