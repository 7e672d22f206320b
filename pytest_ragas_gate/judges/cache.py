"""The on-disk cache of judge replies.

Each entry is keyed by the sha256 of (judge kind, model, prompt version, request kind, the
full request JSON); the API key is never part of it. Layout::

    <cache_dir>/<key[:2]>/<key>.json

An entry holds the validated reply and the usage of the call that produced it. Writes go
to a temporary file in the same directory and are moved into place with ``os.replace``,
which is atomic, so concurrent xdist workers and separate processes never see half an
entry; two writers of the same key both write a complete, equivalent file and the last
one wins. An unreadable or invalid entry counts as a miss and is rewritten by the next
successful call; it is never fatal.

Modes: ``readwrite`` (default) looks up and records; ``read`` replays only, and a miss is
an error (deterministic CI without a key); ``off`` neither reads nor writes.

Signed entries (:mod:`pytest_ragas_gate.judges.cache_signing`): with a signer every entry written
carries an Ed25519 signature over its key and content; with a verifier an entry that is
unsigned, edited after signing or signed by another key is rejected, which is a miss (in
``read`` mode, an error of the case that needed it) and never a replay.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..text_safety import json_text
from .cache_integrity import CacheIntegrity

if TYPE_CHECKING:
    from .cache_signing import EntrySigner, EntryVerifier

#: What the cache does: read and write entries, only read them, or neither.
CacheMode = Literal["readwrite", "read", "off"]

#: Bumped when the entry layout changes; entries of another format are misses.
ENTRY_FORMAT = 1


def cache_key(
    *, judge_kind: str, model: str, prompt_version: str, kind: str, payload: Any, repeat: int = 0
) -> str:
    """The cache key of one judge request (or embedding batch).

    Each repeat of a repeated judgement (``repeats: K``) is an entry of its own, so a
    cached re-run replays every repeat; the first repeat keeps the key of an unrepeated
    request, so a run with repeats reuses what a run without them recorded.

    Args:
        judge_kind: ``anthropic`` or ``openai``.
        model: the model name.
        prompt_version: :data:`pytest_ragas_gate.judges.prompts.PROMPT_VERSION`.
        kind: the request kind (``verify_claims``, ``embed`` …).
        payload: the full request, as JSON-able data.
        repeat: which repeat of the request this is, from 0.

    >>> key = cache_key(judge_kind="openai", model="m", prompt_version="1", kind="k", payload={})
    >>> len(key)
    64
    >>> same = dict(judge_kind="openai", model="m", prompt_version="1", kind="k", payload={})
    >>> cache_key(**same, repeat=0) == key != cache_key(**same, repeat=1)
    True
    """
    described: dict[str, Any] = {
        "judge": judge_kind,
        "model": model,
        "prompt_version": prompt_version,
        "kind": kind,
        "request": payload,
    }
    if repeat:
        described["repeat"] = repeat
    # json_text escapes a lone surrogate (a live target's or a judge's text may hold one),
    # which .encode() would refuse; every other key is unchanged.
    canonical = json_text(
        described,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """What a cache entry holds: the reply data and the usage of the original call."""

    reply: Any
    usage: dict[str, Any]


class JudgeCache:
    """Stores and replays judge replies under ``directory``.

    Attributes:
        directory: the cache directory (created on the first write).
        mode: ``readwrite``, ``read`` or ``off``.
        hits / misses / writes / corrupt / write_errors: counters for reports and tests.
        signer: signs every entry written, when the run has the signing key.
        verifier: replays only entries it verifies, when ``cache_public_key`` is set.
        rejected: the keys of entries that failed verification, with the reason.
    """

    def __init__(
        self,
        directory: Path,
        mode: CacheMode = "readwrite",
        *,
        signer: EntrySigner | None = None,
        verifier: EntryVerifier | None = None,
    ) -> None:
        self.directory = directory
        self.mode: CacheMode = mode
        self.signer = signer
        self.verifier = verifier
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self.corrupt = 0
        self.write_errors = 0
        self.verified = 0
        self.rejected: dict[str, str] = {}

    @property
    def reads(self) -> bool:
        """Whether lookups are made."""
        return self.mode != "off"

    @property
    def records(self) -> bool:
        """Whether new replies are written."""
        return self.mode == "readwrite"

    def path_for(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.directory / key[:2] / f"{key}.json"

    def load(self, key: str) -> CacheEntry | None:
        """The entry of ``key``, or None when it is absent, unreadable or malformed.

        The reply data is returned as stored; the caller validates it against the
        request's reply model and calls :meth:`discard` if it does not fit.
        """
        if not self.reads:
            return None
        path = self.path_for(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, UnicodeDecodeError, ValueError):
            self.corrupt += 1
            self.misses += 1
            return None
        if (
            not isinstance(data, dict)
            or data.get("format") != ENTRY_FORMAT
            or data.get("key") != key
            or "reply" not in data
            or not isinstance(data.get("usage"), dict)
        ):
            self.corrupt += 1
            self.misses += 1
            return None
        if self.verifier is not None:
            problem = self.verifier.problem(data)
            if problem is not None:
                self.rejected[key] = problem
                self.misses += 1
                return None
            self.verified += 1
        self.hits += 1
        return CacheEntry(reply=data["reply"], usage=data["usage"])

    def integrity(self) -> CacheIntegrity:
        """What this cache verified, rejected and signed so far."""
        rejected: dict[str, int] = {}
        for reason in self.rejected.values():
            rejected[reason] = rejected.get(reason, 0) + 1
        return CacheIntegrity(
            public_key_fingerprint=None if self.verifier is None else self.verifier.fingerprint,
            verified=self.verified,
            signed=self.writes if self.signer is not None else 0,
            rejected=dict(sorted(rejected.items())),
        )

    def discard(self) -> None:
        """Recount the last hit as a corrupt miss (its reply failed validation)."""
        self.hits -= 1
        self.corrupt += 1
        self.misses += 1

    def store(self, key: str, *, reply: Any, usage: dict[str, Any], about: dict[str, Any]) -> None:
        """Write the entry of ``key`` atomically; a failed write is counted, never raised.

        Args:
            key: the cache key.
            reply: the validated reply, as JSON-able data.
            usage: the usage of the call that produced it.
            about: descriptive fields (judge, model, kind) for people reading the file.
        """
        if not self.records:
            return
        path = self.path_for(key)
        entry: dict[str, Any] = {
            "format": ENTRY_FORMAT,
            "key": key,
            **about,
            "reply": reply,
            "usage": usage,
        }
        if self.signer is not None:
            entry = self.signer.sign(entry)
        text = json_text(entry, indent=1, sort_keys=True)
        temp_name: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                "w",
                encoding="utf-8",
                dir=path.parent,
                prefix=f".{key[:12]}-",
                suffix=".tmp",
                delete=False,
            ) as handle:
                temp_name = handle.name
                handle.write(text)
            os.replace(temp_name, path)
            temp_name = None
            self.writes += 1
        except OSError:
            # A read-only or full disk costs the next run a call, not this run its result.
            self.write_errors += 1
        finally:
            if temp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp_name)
