"""A local fake LLM server speaking the Anthropic and OpenAI HTTP APIs, for tests and benchmarks.

The real SDKs talk to it over HTTP on 127.0.0.1, so the judges are exercised end to end
(serialisation, headers, retries, timeouts) without a network or a key::

    with FakeLLM() as server:
        judge = AnthropicJudge(base_url=server.url, api_key="test-key-not-real")
        judge = OpenAIJudge(base_url=server.openai_url, api_key="test-key-not-real")

Endpoints: ``POST /v1/messages`` (a ``tool_use`` block with the reply), ``POST
/v1/chat/completions`` (the reply as JSON message content), ``POST /v1/embeddings``
(deterministic bag-of-trigram vectors) and ``POST /v1/evaluate`` (an in-house evaluation
service: :data:`EVALUATE_PATH`), which answers and fails as the chat endpoints do.

Token usage is estimated the way current BPE tokenizers behave on average: one token per
CJK character (Chinese, Japanese, Korean and full-width punctuation) and one per four
characters of anything else; see :func:`estimate_tokens`. Input tokens count what the
model reads (system prompt, message texts, tool or response-format schemas, a few tokens
of framing per message), not the JSON envelope of the HTTP body.

Scripting: ``responder`` maps a :class:`FakeCall` to the reply data (a dict) or a
:class:`Raw` text reply; :func:`default_reply` answers every request kind sensibly from the
data blocks of the prompt. ``latency_s`` delays every answer. Faults: :meth:`FakeLLM.fail`
on given call numbers (1-based, judge calls only) or with a seeded probability — HTTP
statuses with optional ``retry-after``, a hang past the client timeout, a body that is
not JSON, or a reply that does not fit the schema. ``echo_key`` makes every error body
quote the API key the client presented, as a careless gateway would. Every request is
recorded with its headers and body.

Judge noise: ``flip_probability`` makes a judge that samples differently on every call, as
an LLM at temperature 0 still does. Each verdict-like field of a reply (a claim's
``verdict``, a statement's ``attributed``, a chunk's ``relevant``, a relevancy ``rating``,
an answer claim's TP/FP class) flips with that probability, drawn anew per request from a
generator seeded with ``seed``; the items themselves (claims, statements, chunks) stay as
the responder gave them. :func:`flip_verdicts` is the same switch for scripted replies.

Prompt caching is simulated the way the providers report it (``prompt_cache=False`` turns
it off). Anthropic: a prefix ending at a ``cache_control`` breakpoint (rendered in the
order tools, system, messages) of at least ``cache_min_tokens`` tokens is written when the
answer is sent, and a later request whose prefix matches byte for byte at a breakpoint (or
up to 20 blocks before one) reads it; ``usage`` then splits the prompt into
``input_tokens`` (the rest), ``cache_creation_input_tokens`` and
``cache_read_input_tokens``. OpenAI: prefixes of 1,024 tokens and more are cached by
themselves, in steps of 128 tokens, and ``usage.prompt_tokens_details.cached_tokens`` says
how many of ``prompt_tokens`` were read. Entries live ``cache_ttl_s`` seconds from their
last use. A request that arrives while the request writing its prefix is still being
answered misses, as on the real APIs.

Server dialects (``dialect=``): the structured output local OpenAI-compatible servers take,
as recorded from the real ones (:data:`DIALECTS`): llama-cpp-python constrains
``json_object`` + ``schema`` and answers ``json_schema`` with HTTP 500; LM Studio answers
``json_object`` with HTTP 400; vLLM and Ollama constrain ``json_schema``; llama.cpp's own
server takes both. With a dialect the server also answers like the small model behind it:
a reply fits the schema only when a mode it honours carried the schema; a bare
``json_object`` gets ``{}``, no format gets prose, and an array of objects whose length
the schema leaves open gets one item too many (as Gemma 3 270M gave). The judge's one-off
probe of the structured-output mode (its system message names the probe) is answered in
kind but not counted as a judge call (``probes`` counts it).

Batch APIs: the Anthropic Message Batches API (``POST /v1/messages/batches``, ``GET
…/{id}``, ``GET …/{id}/results`` as JSON Lines, ``POST …/{id}/cancel``) and the OpenAI
Batch API (``POST /v1/files`` multipart upload, ``GET /v1/files/{id}/content``, ``POST
/v1/batches``, ``GET /v1/batches/{id}``, ``POST …/{id}/cancel``). A batch reports itself
in progress for ``batch_polls`` status polls (half of it processed), then ends; its
requests are answered when it ends, one after the other, by the same responder, faults,
prompt cache and usage as direct calls. Failure injection: :meth:`FakeLLM.fail_in_batch`
(chosen requests errored, expired or canceled), ``batch_expire_after`` (the batch
expires with only that many processed), ``batch_status_error`` (status polls answer with
that HTTP status), ``batch_stall_at`` (the batch processes that share of its requests and
stays in progress until canceled), and a cancel request ends the batch with the
unprocessed requests canceled.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import json
import math
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

CHAT_PATHS = ("/v1/messages", "/v1/chat/completions")
#: A team's own evaluation service, as ``examples/custom_judge.py`` speaks to it: the body
#: holds ``model``, the chat ``messages`` and the reply ``schema``; the answer is
#: ``{"output": <reply object or text>, "usage": {"input_tokens", "output_tokens"}}``, an
#: error ``{"error": <message>}`` with its HTTP status.
EVALUATE_PATH = "/v1/evaluate"

_BLOCK = re.compile(
    r'<data id="(?P<id>[0-9a-f]+)" field="(?P<field>\w+)"(?: index="(?P<index>\d+)")?>\n'
    r'(?P<text>.*?)\n</data id="(?P=id)">',
    re.DOTALL,
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")
_WORD = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]", re.IGNORECASE)
_NONCOMMITTAL = ("i don't know", "i do not know", "cannot answer", "不知道", "无法回答", "无法确定")
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
#: Role markers and separators each message costs on top of its text.
MESSAGE_FRAMING_TOKENS = 4
_STOPWORDS = frozenset(
    "a an the is are was were of in on at to and or by for with as it its be has have had "
    "that this which who what when where how did does do".split()
)


@dataclass(frozen=True)
class Raw:
    """A reply sent as plain text instead of structured data (e.g. not JSON at all)."""

    text: str


@dataclass(frozen=True)
class Fault:
    """A failure the server produces instead of a normal answer.

    Attributes:
        kind: ``status`` (an HTTP error), ``hang`` (no answer for ``hang_s``),
            ``malformed`` (HTTP 200 with a body that is not JSON) or ``invalid`` (a reply
            that does not fit the reply schema).
        status: the HTTP status of a ``status`` fault.
        retry_after: the ``retry-after`` header to send with it, if any.
        hang_s: how long a ``hang`` fault waits.
    """

    kind: str
    status: int = 500
    retry_after: str | None = None
    hang_s: float = 5.0


def status(code: int, retry_after: str | None = None) -> Fault:
    """An HTTP error fault."""
    return Fault("status", status=code, retry_after=retry_after)


HANG = Fault("hang")
MALFORMED = Fault("malformed")
INVALID = Fault("invalid")


@dataclass(frozen=True)
class Dialect:
    """What one OpenAI-compatible server does with each structured-output mode.

    Attributes:
        refuses: per refused mode, the HTTP status and error message it answers with.
        honours: the modes whose schema it constrains decoding to.
    """

    refuses: dict[str, tuple[int, str]] = field(default_factory=dict)
    honours: frozenset[str] = frozenset()


#: The servers' dialects. The error messages are the servers' own (llama-cpp-python 0.3's
#: request validation, LM Studio's), shortened.
DIALECTS: dict[str, Dialect] = {
    "openai": Dialect(honours=frozenset({"json_schema", "json_object_schema", "tools"})),
    "llama-cpp-python": Dialect(
        refuses={
            "json_schema": (
                500,
                "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
                "'ctx': {'expected': \"'text' or 'json_object'\"}}]",
            )
        },
        # A named tool_choice gets a grammar from the tool's parameters.
        honours=frozenset({"json_object_schema", "tools"}),
    ),
    "llama.cpp": Dialect(honours=frozenset({"json_schema", "json_object_schema"})),
    "lm-studio": Dialect(
        refuses={
            mode: (400, "'response_format.type' must be 'json_schema' or 'text'")
            for mode in ("json_object", "json_object_schema")
        },
        honours=frozenset({"json_schema"}),
    ),
    "vllm": Dialect(honours=frozenset({"json_schema", "tools"})),
    "ollama": Dialect(honours=frozenset({"json_schema"})),
}

_PROBE_MARK = "structured output probe"


def structured_output_of(body: dict[str, Any]) -> str:
    """The structured-output mode a Chat Completions body asks for."""
    if body.get("tools"):
        return "tools"
    response_format = body.get("response_format") or {}
    kind = response_format.get("type")
    if kind == "json_schema":
        return "json_schema"
    if kind == "json_object":
        return "json_object_schema" if response_format.get("schema") else "json_object"
    return "none"


def _is_probe(body: dict[str, Any]) -> bool:
    return any(
        _PROBE_MARK in str(message.get("content", ""))
        for message in body.get("messages", [])
        if message.get("role") == "system"
    )


def sent_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The reply schema a Chat Completions request sent with its format (None: none sent)."""
    mode = structured_output_of(body)
    schema: Any = None
    if mode == "tools":
        schema = body["tools"][0]["function"]["parameters"]
    elif mode == "json_schema":
        schema = body["response_format"]["json_schema"]["schema"]
    elif mode == "json_object_schema":
        schema = body["response_format"]["schema"]
    return schema if isinstance(schema, dict) else None


def _probe_reply(body: dict[str, Any]) -> dict[str, Any]:
    """The one object the probe's schema allows: each property's first enum value."""
    schema = sent_schema(body) or {}
    return {name: spec["enum"][0] for name, spec in schema["properties"].items()}


def _as_constrained_to(schema: dict[str, Any] | None, reply: dict[str, Any]) -> dict[str, Any]:
    """``reply`` as a small model fills the grammar of ``schema``.

    The grammar fixes the shape, not the count: where the schema leaves an array of
    objects open the model writes one item too many (Gemma 3 270M behind llama-cpp-python
    gave three verdicts for two claims); ``maxItems`` stops it at the count.
    """
    properties = (schema or {}).get("properties") or {}
    filled = dict(reply)
    for name, value in reply.items():
        spec = properties.get(name) or {}
        if isinstance(value, list) and value and isinstance(value[-1], dict):
            if "maxItems" not in spec:
                filled[name] = [*value, dict(value[-1])]
    return filled


@dataclass(frozen=True)
class FakeCall:
    """One judge call as the responder sees it.

    Attributes:
        api: ``anthropic`` or ``openai``.
        kind: the request kind, from the tool / schema name (None if absent).
        body: the request JSON.
        system: the system prompt.
        user: the first user message.
        data: the data blocks of the first user message that carry the request's nonce:
            field -> texts, in order.
        nonce: the data-block id the system prompt declares (else the first block's).
        reasks: how many re-ask follow-ups the conversation holds.
        number: the 1-based number of this judge call on the server.
        user_messages: every user message of the conversation, in order (the first one,
            then each re-ask); empty means ``(user,)``.
    """

    api: str
    kind: str | None
    body: dict[str, Any]
    system: str
    user: str
    data: dict[str, list[str]]
    nonce: str | None
    reasks: int
    number: int
    user_messages: tuple[str, ...] = ()

    def outside_data(self) -> str:
        """What the model reads as instructions: the system prompt and every user message,
        minus the genuine data blocks.

        Only blocks with the request's nonce are removed, so a block forged with another
        id counts as outside. The assistant turns of a re-ask are the model's own earlier
        replies, not instructions to it, and are left out.
        """
        messages = self.user_messages or (self.user,)
        return "\n".join([self.system, *(self._strip_blocks(text) for text in messages)])

    def _strip_blocks(self, text: str) -> str:
        def genuine(match: re.Match[str]) -> str:
            return "" if self.nonce is None or match.group("id") == self.nonce else match.group(0)

        return _BLOCK.sub(genuine, text)


@dataclass
class Recorded:
    """A request as the server received it.

    ``received_s`` and ``answered_s`` are ``time.monotonic()`` readings of the server
    process, so tests can tell which calls of a case ran one after the other.
    """

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any
    received_s: float = 0.0
    answered_s: float | None = None

    @property
    def text(self) -> str:
        """The body as text."""
        return self.raw.decode("utf-8", errors="replace")


Responder = Callable[[FakeCall], "dict[str, Any] | Raw"]


# --- the default responder --------------------------------------------------------------


def sentences(text: str) -> list[str]:
    """Split text at sentence ends (Latin and CJK punctuation)."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def _tokens(text: str) -> set[str]:
    return {token.lower() for token in _WORD.findall(text)} - _STOPWORDS


def supported_by(statement: str, sources: Iterable[str]) -> bool:
    """Whether every content token of ``statement`` occurs in ``sources``."""
    needed = _tokens(statement)
    available = _tokens(" ".join(sources))
    return bool(needed) and needed <= available


def claim_verdict(claim: str, sources: Iterable[str]) -> str:
    """``supported``; ``contradicted`` when the claim's numbers are not the contexts' ones
    but the rest of it is there (``completed in 1925`` against ``completed in 1889``);
    else ``not_in_context``."""
    texts = list(sources)
    if supported_by(claim, texts):
        return "supported"
    numbers = {token for token in _tokens(claim) if token.isdigit()}
    words = _tokens(claim) - numbers
    available = _tokens(" ".join(texts))
    stated = {token for token in available if token.isdigit()}
    if numbers and stated and not numbers & stated and words and words <= available:
        return "contradicted"
    return "not_in_context"


def _overlaps(text: str, other: str) -> bool:
    return bool(_tokens(text) & _tokens(other))


def default_reply(call: FakeCall) -> dict[str, Any]:
    """A sensible reply to each request kind, computed from the prompt's data blocks."""
    data = call.data

    def one(field: str) -> str:
        return data.get(field, [""])[0]

    if call.kind == "extract_claims":
        # As the prompt defines it: a sentence that only says the answer cannot tell is
        # no claim, so a refusal has none.
        # Inline citations ("[2]", "【2】") say where a claim came from; they are not part of it.
        answer = re.sub(r"\s*(\[[\w.:#, -]{1,40}\]|【[^】]{1,40}】)", "", one("answer"))
        return {
            "claims": [
                sentence
                for sentence in sentences(answer)
                if not any(cue in sentence.lower() for cue in _NONCOMMITTAL)
            ]
        }
    if call.kind == "verify_claims":
        contexts = data.get("context", [])
        return {
            "verdicts": [
                {
                    "claim": claim,
                    "verdict": claim_verdict(claim, contexts),
                    "reason": "overlap",
                    "contradicts_history": bool(data.get("assistant_turn"))
                    and claim_verdict(claim, data["assistant_turn"]) == "contradicted",
                }
                for claim in data.get("claim", [])
            ]
        }
    if call.kind == "attribute_statements":
        contexts = data.get("context", [])
        return {
            "verdicts": [
                {"statement": statement, "attributed": supported_by(statement, contexts)}
                for statement in sentences(one("reference"))
            ]
        }
    if call.kind == "review_contexts":
        contexts = data.get("context", [])
        reference = one("reference")
        return {
            "chunks": [
                {"index": index, "relevant": _overlaps(chunk, reference)}
                for index, chunk in enumerate(contexts)
            ],
            "statements": [
                {"statement": statement, "attributed": supported_by(statement, contexts)}
                for statement in sentences(reference)
            ],
        }
    if call.kind == "review_case":
        contexts = data.get("context", [])
        reference = one("reference")
        return {
            "verdicts": [
                {
                    "claim": claim,
                    "verdict": claim_verdict(claim, contexts),
                    "reason": "overlap",
                    "contradicts_history": bool(data.get("assistant_turn"))
                    and claim_verdict(claim, data["assistant_turn"]) == "contradicted",
                }
                for claim in data.get("claim", [])
            ],
            "chunks": [
                {"index": index, "relevant": _overlaps(chunk, reference)}
                for index, chunk in enumerate(contexts)
            ],
            "statements": [
                {"statement": statement, "attributed": supported_by(statement, contexts)}
                for statement in sentences(reference)
            ],
        }
    if call.kind == "classify_correctness":
        reference = one("reference")
        claims = data.get("answer_claim", [])
        tp = [{"statement": c} for c in claims if supported_by(c, [reference])]
        fp = [{"statement": c} for c in claims if not supported_by(c, [reference])]
        fn = [{"statement": s} for s in sentences(reference) if not supported_by(s, claims)]
        return {"tp": tp, "fp": fp, "fn": fn}
    if call.kind == "rate_relevancy":
        answer = one("answer")
        noncommittal = any(cue in answer.lower() for cue in _NONCOMMITTAL)
        # A follow-up is read with the user turns before it (a conversation's history).
        asked = " ".join([*data.get("user_turn", []), one("question")])
        relevant = _overlaps(asked, answer) and not noncommittal
        return {"rating": 5 if relevant else 1, "noncommittal": noncommittal, "reason": "fake"}
    if call.kind == "generate_questions":
        answer = one("answer")
        match = re.search(r"write (\d+) different questions", call.system)
        count = int(match.group(1)) if match else 3
        return {"questions": [f"What about {answer}?"] * count, "noncommittal": False}
    if call.kind == "judge_chunks":
        target = one("reference") or one("question")
        return {
            "verdicts": [
                {"index": index, "relevant": _overlaps(chunk, target)}
                for index, chunk in enumerate(data.get("context", data.get("chunk", [])))
            ]
        }
    if call.kind == "attribute_answer":
        answer = one("answer")
        documents = data.get("context", data.get("document", []))
        used = [i for i, doc in enumerate(documents) if _overlaps(doc, answer)]
        return {"used_documents": used}
    if call.kind == "verify_citations":
        contexts = data.get("context", [])
        cites = [
            [int(rank) for rank in re.findall(r"\d+", line)]
            for line in re.findall(r"Cites contexts: ([^\n]*)", call.user)
        ]
        return {
            "sentences": [
                {
                    "index": index,
                    "factual": not any(cue in sentence.lower() for cue in _NONCOMMITTAL),
                    "supporting": [
                        rank for rank in cites[index] if supported_by(sentence, [contexts[rank]])
                    ],
                }
                for index, sentence in enumerate(data.get("sentence", []))
            ]
        }
    if call.kind in ("synth_questions", "synth_critique"):
        return synth_reply(call)
    if call.kind == "compare_answers":
        return compare_reply(call)
    return {}


def answer_quality(answer: str, contexts: list[str], reference: str | None) -> float:
    """How the fake judge rates one answer in a comparison, from 0 to 1.

    Faithfulness (a supported sentence counts 1, a contradicted one -1, over the answer's
    sentences) weighs double; completeness is the share of the reference's sentences the
    answer supports.
    """
    said = sentences(answer)
    points = []
    for sentence in said:
        verdict = claim_verdict(sentence, contexts)
        points.append(1.0 if verdict == "supported" else -1.0 if verdict == "contradicted" else 0.0)
    faithfulness = max(0.0, sum(points) / len(points)) if points else 0.0
    parts = [faithfulness, faithfulness]
    if reference:
        statements = sentences(reference)
        if statements:
            parts.append(sum(supported_by(s, [answer]) for s in statements) / len(statements))
    return sum(parts) / len(parts)


def compare_reply(call: FakeCall) -> dict[str, Any]:
    """``compare_answers``: the answer the fake rates better, or a tie within 0.05.

    It reads the answers by their block fields, never by the order they are shown in, so
    it is position-consistent (noise aside, see :func:`flip_verdicts`).
    """
    data = call.data
    contexts = data.get("context", [])
    reference = data.get("reference", [None])[0]
    a = answer_quality(data.get("answer_a", [""])[0], contexts, reference)
    b = answer_quality(data.get("answer_b", [""])[0], contexts, reference)
    better = "tie" if abs(a - b) < 0.05 else "A" if a > b else "B"
    return {"better": better, "reason": f"fake: A {a:.2f}, B {b:.2f}"}


def synth_reply(call: FakeCall) -> dict[str, Any]:
    """rag-gate synth's requests: questions from the chunks' sentences, and their critique.

    Every fifth question refers to "this section" instead of naming its subject, and the
    critic drops exactly those (not_standalone), so runs show a critic drop share. A
    conversation's follow-up refers back ("And how long does it last?") to the first turn;
    every fifth names its subject again instead, and the critic drops it (not_standalone).
    """
    chunks, titles = call.data.get("chunk", []), call.data.get("title", [])
    if call.kind == "synth_critique":
        # A follow-up that repeats the subject in quotes does not need the earlier turn.
        named_again = {
            int(match.group(1))
            for match in re.finditer(r'field="follow_up" index="(\d+)">\n([^\n]*)', call.user)
            if "'" in match.group(2)
        }
        return {
            "verdicts": [
                {
                    "index": i,
                    "keep": "this section" not in q and i not in named_again,
                    "problem": "ok"
                    if "this section" not in q and i not in named_again
                    else "not_standalone",
                    "reason": "fake",
                }
                for i, q in enumerate(call.data.get("question", []))
            ]
        }
    match = re.search(r"kinds in order: ([a-z, ]+)\.", call.user)
    questions = []
    for slot, kind in enumerate(match.group(1).split(", ") if match else []):
        found = [sentences(chunk.split("\n", 1)[-1]) or [chunk] for chunk in chunks]
        cited = [0, 1] if kind == "multi" else [] if kind == "unanswerable" else [0]
        taken = slot + len(call.data.get("avoid", []))
        parts = [found[i][taken % len(found[i])] for i in cited]
        subject = " ".join(" ".join(parts).split()[:8]) or "its launch on the moon"
        salt = int(hashlib.md5(f"{chunks}{slot}".encode()).hexdigest(), 16) % 5
        about = "this section" if salt == 0 else f"'{titles[0] if titles else ''}'"
        question = {
            "kind": kind,
            "question": f"What does {about} say about {subject}? ({kind} {slot})",
            "reference": " ".join(parts) or "The documents do not say.",
            "chunks": cited,
        }
        if kind == "conversation":
            later = found[0][(taken + 1) % len(found[0])]
            again = f"'{titles[0] if titles else ''}'" if salt == 1 else "it"
            question["follow_ups"] = [
                {"question": f"And what else about {again}?", "reference": later, "chunks": [0]}
            ]
        questions.append(question)
    return {"questions": questions}


_CLAIM_VERDICTS = frozenset({"supported", "not_in_context", "contradicted"})


def flip_verdicts(reply: dict[str, Any], probability: float, rng: random.Random) -> dict[str, Any]:
    """``reply`` with each verdict-like field flipped with ``probability``; a new dict.

    A claim verdict moves to one of the two other verdicts, a boolean is negated, a 1-5
    rating moves to the far side of the scale (1-2 ↔ 4-5, 3 to 1 or 5), and a TP answer
    claim becomes FP or back (FN statements come from the reference and stay).

    >>> reply = {"verdicts": [{"claim": "c", "verdict": "supported"}]}
    >>> flip_verdicts(reply, 1.0, random.Random(0))
    {'verdicts': [{'claim': 'c', 'verdict': 'not_in_context'}]}
    >>> flip_verdicts({"rating": 5, "noncommittal": False}, 1.0, random.Random(0))["rating"]
    1
    >>> flip_verdicts({"chunks": [{"index": 0, "relevant": True}]}, 0.0, random.Random(0))
    {'chunks': [{'index': 0, 'relevant': True}]}
    """

    def flips() -> bool:
        return rng.random() < probability

    def item(entry: Any) -> Any:
        if not isinstance(entry, dict):
            return entry
        entry = dict(entry)
        verdict = entry.get("verdict")
        if verdict in _CLAIM_VERDICTS and flips():
            # A supported claim turns merely unsupported, as a judge's slip does.
            entry["verdict"] = "not_in_context" if verdict == "supported" else "supported"
        for name in ("attributed", "relevant"):
            if isinstance(entry.get(name), bool) and flips():
                entry[name] = not entry[name]
        return entry

    noisy: dict[str, Any] = {}
    for key, value in reply.items():
        noisy[key] = [item(entry) for entry in value] if isinstance(value, list) else value
    if noisy.get("better") in ("A", "B", "tie") and flips():
        # A slip in a comparison: the preference moves to one of the two other choices.
        noisy["better"] = rng.choice([c for c in ("A", "B", "tie") if c != noisy["better"]])
    rating = noisy.get("rating")
    if isinstance(rating, int) and not isinstance(rating, bool) and flips():
        noisy["rating"] = 1 if rating >= 3 else 5
    if isinstance(noisy.get("tp"), list) and isinstance(noisy.get("fp"), list):
        true_positives: list[Any] = []
        false_positives: list[Any] = []
        for entry in noisy["tp"]:
            (false_positives if flips() else true_positives).append(entry)
        for entry in noisy["fp"]:
            (true_positives if flips() else false_positives).append(entry)
        noisy["tp"], noisy["fp"] = true_positives, false_positives
    return noisy


def estimate_tokens(text: str) -> int:
    """Tokens a BPE tokenizer spends on ``text``: 1 per CJK character, 1 per 4 other characters.

    English prose averages about four characters per token in the Claude and GPT
    tokenizers; a Chinese character costs about one token.

    >>> estimate_tokens("Apple was founded in 1976.")
    7
    >>> estimate_tokens("苹果公司成立于1976年。")
    10
    """
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text") or json.dumps(block.get("input", ""), ensure_ascii=False))
            for block in content
            if isinstance(block, dict)
        )
    return str(content or "")


def input_tokens_of(api: str, body: dict[str, Any]) -> int:
    """The prompt tokens of a chat request: texts, schemas and per-message framing."""
    if api == "anthropic":
        return anthropic_input_tokens(body)
    messages = body.get("messages") or []
    texts = [_content_text(message.get("content")) for message in messages]
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
    if schema is not None:
        texts.append(json.dumps(schema, ensure_ascii=False))
    framing = MESSAGE_FRAMING_TOKENS * (len(messages) + 1)
    return framing + sum(estimate_tokens(text) for text in texts)


def embedding(text: str, dimensions: int = 64) -> list[float]:
    """A deterministic unit vector of hashed character trigrams: similar texts, close vectors."""
    vector = [0.0] * dimensions
    padded = f"  {text.lower()}  "
    for start in range(len(padded) - 2):
        digest = hashlib.md5(padded[start : start + 3].encode("utf-8")).digest()
        vector[digest[0] % dimensions] += 1.0
    norm = math.sqrt(sum(value * value for value in vector)) or 1.0
    return [value / norm for value in vector]


# --- the providers' prompt caches ---------------------------------------------------------

#: How many content blocks before a breakpoint Anthropic looks back for a cached prefix.
_LOOKBACK_BLOCKS = 20
#: OpenAI caches prompts from this many tokens on, in steps of ``_OPENAI_STEP``.
_OPENAI_MIN_TOKENS = 1024
_OPENAI_STEP = 128
_CHUNK_CHARS = 32


@dataclass(frozen=True)
class CacheUse:
    """How a chat request met the prompt cache: tokens read, tokens written, and the
    prefix digests to store once the answer is sent."""

    read: int = 0
    written: int = 0
    store: tuple[str, ...] = ()


def _segments(body: dict[str, Any]) -> list[tuple[str, int, bool]]:
    """An Anthropic request as rendered for caching, in the order tools, system, messages:
    each block's identity (role and text), its tokens (framing included) and whether it
    carries a ``cache_control`` breakpoint."""
    segments: list[tuple[str, int, bool]] = []
    for tool in body.get("tools") or []:
        text = str(tool.get("name", "")) + " " + str(tool.get("description", ""))
        schema = json.dumps(tool.get("input_schema", {}), ensure_ascii=False)
        tokens = estimate_tokens(text) + estimate_tokens(schema)
        segments.append((f"tool:{text}:{schema}", tokens, "cache_control" in tool))
    system = body.get("system")
    system_blocks = system if isinstance(system, list) else [{"text": str(system or "")}]
    for position, block in enumerate(system_blocks):
        text = str(block.get("text", ""))
        framing = MESSAGE_FRAMING_TOKENS if position == 0 else 0
        segments.append(
            (f"system:{text}", framing + estimate_tokens(text), "cache_control" in block)
        )
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"text": str(content or "")}]
        for position, block in enumerate(blocks):
            text = str(block.get("text") or json.dumps(block.get("input", ""), ensure_ascii=False))
            framing = MESSAGE_FRAMING_TOKENS if position == 0 else 0
            identity = f"{message.get('role')}:{text}"
            segments.append((identity, framing + estimate_tokens(text), "cache_control" in block))
    return segments


def anthropic_input_tokens(body: dict[str, Any]) -> int:
    """The prompt tokens of a Messages request, counted block by block."""
    return sum(tokens for _, tokens, _ in _segments(body))


class PromptCache:
    """The prefix caches of the fake Anthropic and OpenAI APIs (thread-safe)."""

    def __init__(self, ttl_s: float = 300.0) -> None:
        self.ttl_s = ttl_s
        self._expiry: dict[str, float] = {}
        self._lock = threading.Lock()

    def _live(self, digest: str, now: float) -> bool:
        expiry = self._expiry.get(digest)
        if expiry is None or expiry < now:
            return False
        self._expiry[digest] = now + self.ttl_s  # a read refreshes the entry
        return True

    def store(self, use: CacheUse) -> None:
        """Make the prefixes of an answered request readable."""
        now = time.monotonic()
        with self._lock:
            for digest in use.store:
                self._expiry[digest] = now + self.ttl_s

    def anthropic(self, body: dict[str, Any], min_tokens: int) -> CacheUse:
        """Reads and writes at the request's ``cache_control`` breakpoints."""
        digest = hashlib.sha256(str(body.get("model", "")).encode())
        boundaries: list[tuple[str, int, bool]] = []  # (digest, tokens so far, breakpoint)
        tokens = 0
        for identity, block_tokens, breakpoint in _segments(body):
            digest.update(identity.encode("utf-8", "surrogatepass") + b"\x00")
            tokens += block_tokens
            boundaries.append((digest.hexdigest(), tokens, breakpoint))
        breakpoints = [index for index, (_, _, marked) in enumerate(boundaries) if marked]
        now = time.monotonic()
        read_at = -1
        with self._lock:
            for index in breakpoints:
                for candidate in range(index, max(-1, index - _LOOKBACK_BLOCKS), -1):
                    if candidate > read_at and self._live(boundaries[candidate][0], now):
                        read_at = candidate
                        break
        read = boundaries[read_at][1] if read_at >= 0 else 0
        cacheable = [i for i in breakpoints if boundaries[i][1] >= min_tokens and i > read_at]
        written = boundaries[cacheable[-1]][1] - read if cacheable else 0
        return CacheUse(read, written, tuple(boundaries[i][0] for i in cacheable))

    def openai(self, body: dict[str, Any], prompt_tokens: int) -> CacheUse:
        """Automatic prefix caching: the longest seen prefix, in 128-token steps."""
        pieces: list[str] = [str(body.get("model", ""))]
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        if schema is not None:
            pieces.append(json.dumps(schema, ensure_ascii=False))
        for tool in body.get("tools") or []:
            pieces.append(json.dumps(tool, ensure_ascii=False))
        for message in body.get("messages") or []:
            pieces.append(f"<|{message.get('role')}|>{_message_text(message.get('content'))}")
        rendered = "\x00".join(pieces)
        digest = hashlib.sha256()
        boundaries: list[tuple[str, int]] = []
        tokens = 0
        target = _OPENAI_MIN_TOKENS
        for start in range(0, len(rendered), _CHUNK_CHARS):
            chunk = rendered[start : start + _CHUNK_CHARS]
            digest.update(chunk.encode("utf-8", "surrogatepass"))
            tokens += estimate_tokens(chunk)
            # The last tokens of a prompt are never served from the cache.
            if tokens >= target and target < prompt_tokens:
                boundaries.append((digest.hexdigest(), target))
                target += _OPENAI_STEP
        now = time.monotonic()
        read = 0
        with self._lock:
            for prefix_digest, prefix_tokens in boundaries:
                if self._live(prefix_digest, now):
                    read = prefix_tokens
        return CacheUse(read, 0, tuple(prefix_digest for prefix_digest, _ in boundaries))


# --- the server ---------------------------------------------------------------------------


@dataclass
class _FaultRule:
    fault: Fault
    calls: frozenset[int] | None
    probability: float


@dataclass
class FakeLLM:
    """The fake server; start it with ``with FakeLLM() as server`` or :meth:`start`.

    Attributes:
        responder: computes each judge call's reply (default: :func:`default_reply`).
        latency_s: delay before every answer.
        seed: seeds probabilistic faults.
        required_key: when set, requests whose auth headers lack it get HTTP 401.
        reject_forced_tool_choice: answer a forced Anthropic ``tool_choice`` with HTTP 400,
            as some current Claude models do.
        dialect: the OpenAI-compatible server imitated (a key of :data:`DIALECTS`):
            which structured-output modes it refuses and which it constrains.
        probes: structured-output probes answered or refused (not counted in ``calls``).
        refusals: judge requests refused for their structured-output mode.
        echo_key: quote the presented key in every error body and an ``x-echoed-key``
            header, as careless proxies and gateways do.
    """

    responder: Responder = default_reply
    latency_s: float = 0.0
    seed: int = 0
    required_key: str | None = None
    reject_forced_tool_choice: bool = False
    echo_key: bool = False
    dialect: str = "openai"
    probes: int = 0
    refusals: int = 0
    prompt_cache: bool = True
    cache_min_tokens: int = 1024
    cache_ttl_s: float = 300.0
    requests: list[Recorded] = field(default_factory=list)
    calls: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    batch_polls: int = 1
    flip_probability: float = 0.0
    batch_expire_after: int | None = None
    batch_status_error: int | None = None
    batch_stall_at: float | None = None
    batches: dict[str, FakeBatch] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[_FaultRule] = []
        self._rng = random.Random(self.seed)
        # Its own generator, so switching noise on leaves the faults' draws as they were.
        self._flip_rng = random.Random(f"flips-{self.seed}")
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None
        self.cache = PromptCache(ttl_s=self.cache_ttl_s)
        self._batch_rules: list[tuple[str, Callable[[FakeCall], bool]]] = []

    # lifecycle

    def start(self) -> FakeLLM:
        """Listen on a free port of 127.0.0.1 in a background thread."""
        handler = _make_handler(self)
        self._server = _Server(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening; hanging answers are cut short."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The listening port (kept after :meth:`stop`, so clients then get refused)."""
        assert self._port is not None, "the fake LLM server was never started"
        return self._port

    @property
    def url(self) -> str:
        """The base URL for the Anthropic SDK (it appends ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """The base URL for the OpenAI SDK (it appends ``/chat/completions``)."""
        return f"{self.url}/v1"

    # scripting

    def fail(
        self,
        fault: Fault,
        *,
        calls: Iterable[int] | None = None,
        probability: float = 1.0,
    ) -> None:
        """Produce ``fault`` on the given judge call numbers, or at random with ``probability``."""
        chosen = frozenset(calls) if calls is not None else None
        self._rules.append(_FaultRule(fault, chosen, probability))

    def clear_faults(self) -> None:
        """Forget every scripted fault."""
        self._rules.clear()

    def fail_in_batch(self, result: str, where: Callable[[FakeCall], bool]) -> None:
        """Give batch requests for which ``where`` holds the ``result`` ``errored``,
        ``expired`` or ``canceled`` instead of an answer."""
        self._batch_rules.append((result, where))

    def batch_creates(self) -> list[Recorded]:
        """The recorded batch creations (either API)."""
        return [
            request
            for request in self.requests
            if request.method == "POST" and request.path in ("/v1/messages/batches", "/v1/batches")
        ]

    def batch_cancels(self) -> list[Recorded]:
        """The recorded batch cancellations (either API)."""
        return [
            request
            for request in self.requests
            if request.method == "POST" and request.path.endswith("/cancel")
        ]

    def judge_requests(self) -> list[Recorded]:
        """The recorded judge calls (messages and chat completions), without format probes."""
        return [
            request
            for request in self.requests
            if request.path in CHAT_PATHS
            and not (isinstance(request.body, dict) and _is_probe(request.body))
        ]

    @staticmethod
    def kind_of(request: Recorded) -> str | None:
        """The request kind of a recorded judge call (named at the end of its prompt)."""
        api = "anthropic" if request.path.endswith("/messages") else "openai"
        return _call_of(api, request.body, 0).kind

    # internals

    def _create_batch(self, api: str, body: Any) -> FakeBatch | str:
        """A new batch from a create request, or why it is refused."""
        requests: list[tuple[str, dict[str, Any]]] = []
        if api == "anthropic":
            for entry in (body or {}).get("requests") or []:
                requests.append((str(entry["custom_id"]), dict(entry["params"])))
        else:
            data = self.files.get(str((body or {}).get("input_file_id")))
            if data is None:
                return "input_file_id names no uploaded file"
            for line in data.decode("utf-8").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    if entry.get("url") != "/v1/chat/completions":
                        return f"unsupported url {entry.get('url')!r}"
                    requests.append((str(entry["custom_id"]), dict(entry["body"])))
        ids = [custom_id for custom_id, _ in requests]
        if not requests or len(set(ids)) != len(ids):
            return "a batch needs requests with unique custom_id values"
        with self._lock:
            number = len(self.batches) + 1
            prefix = "msgbatch_fake_" if api == "anthropic" else "batch_fake_"
            batch = FakeBatch(f"{prefix}{number:04d}", api, requests)
            self.batches[batch.id] = batch
        return batch

    def _store_file(self, content_type: str, raw: bytes) -> dict[str, Any]:
        """Keep an uploaded multipart file; returns its File object."""
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw
        )
        data, filename = b"", "upload.jsonl"
        for part in message.iter_parts():  # type: ignore[attr-defined]
            if part.get_param("name", header="content-disposition") == "file":
                data = part.get_payload(decode=True) or b""
                filename = part.get_filename() or filename
        with self._lock:
            file_id = f"file-fake-{len(self.files) + 1:04d}"
            self.files[file_id] = data
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": 0,
            "filename": filename,
            "purpose": "batch",
            "status": "processed",
        }

    def _advance(self, batch: FakeBatch) -> None:
        """One status poll: the batch progresses, and ends after ``batch_polls`` polls."""
        with batch.lock:
            if batch.ended:
                return
            batch.polls += 1
            total = len(batch.requests)
            if batch.canceling:
                self._finish(batch)
            elif self.batch_stall_at is not None:
                batch.done = int(total * self.batch_stall_at)
            elif batch.polls > self.batch_polls:
                self._finish(batch)
            else:
                batch.done = total * batch.polls // (self.batch_polls + 1)

    def _finish(self, batch: FakeBatch) -> None:
        """Answer the batch's requests as direct calls would be answered."""
        for index, (custom_id, body) in enumerate(batch.requests):
            call = _call_of(batch.api, body, 0)
            unprocessed = "canceled" if batch.canceling else "expired"
            limit = batch.done if batch.canceling else self.batch_expire_after
            if limit is not None and index >= limit:
                batch.results[custom_id] = (unprocessed, None)
                continue
            ruled = next((result for result, where in self._batch_rules if where(call)), None)
            if ruled is not None:
                batch.results[custom_id] = (ruled, None)
                continue
            number, fault = self._next_call()
            call = _call_of(batch.api, body, number)
            if fault is not None and fault.kind != "invalid":
                batch.results[custom_id] = ("errored", f"fake HTTP {fault.status}")
                continue
            cache_use = self._cache_use(batch.api, body)
            reply = _SCHEMA_INVALID if fault is not None else self._noisy(self.responder(call))
            self.cache.store(cache_use)
            batch.results[custom_id] = (
                "succeeded",
                chat_response(batch.api, body, call, reply, cache_use),
            )
        batch.done = len(batch.requests)
        batch.ended = True
        if batch.api == "openai":
            self.files[f"file-out-{batch.id}"] = _jsonl(batch.openai_lines(errors=False))
            self.files[f"file-err-{batch.id}"] = _jsonl(batch.openai_lines(errors=True))

    def _next_call(self) -> tuple[int, Fault | None]:
        with self._lock:
            self.calls += 1
            number = self.calls
            for rule in self._rules:
                hit = number in rule.calls if rule.calls is not None else True
                if hit and (rule.probability >= 1.0 or self._rng.random() < rule.probability):
                    return number, rule.fault
            return number, None

    def _noisy(self, reply: dict[str, Any] | Raw) -> dict[str, Any] | Raw:
        if not self.flip_probability or isinstance(reply, Raw):
            return reply
        with self._lock:
            return flip_verdicts(reply, self.flip_probability, self._flip_rng)

    def _cache_use(self, api: str, body: dict[str, Any]) -> CacheUse:
        if not self.prompt_cache:
            return CacheUse()
        if api == "anthropic":
            return self.cache.anthropic(body, self.cache_min_tokens)
        return self.cache.openai(body, input_tokens_of(api, body))

    def _authorised(self, headers: dict[str, str]) -> bool:
        if self.required_key is None:
            return True
        return _presented_key(headers) == self.required_key


def _presented_key(headers: dict[str, str]) -> str:
    presented = headers.get("x-api-key") or headers.get("authorization", "")
    return presented.removeprefix("Bearer ").strip()


def _message_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(block.get("text", "") for block in content if isinstance(block, dict))
    return str(content or "")


_DECLARED_NONCE = re.compile(r'<data id="(?P<id>[0-9a-f]+)"')


_REQUEST_KIND = re.compile(r"Request kind: (\w+)\.")
_NAMED_NONCE = re.compile(r'carry id="(?P<id>[0-9a-f]+)"')


def _call_of(api: str, body: dict[str, Any], number: int) -> FakeCall:
    kind: str | None = None
    if api == "anthropic":
        tools = body.get("tools") or []
        if len(tools) == 1:
            kind = str(tools[0].get("name", "")).removeprefix("record_")
        system = body.get("system") or ""
        if isinstance(system, list):
            system = "\n".join(block.get("text", "") for block in system)
        messages = body.get("messages", [])
    else:
        response_format = body.get("response_format") or {}
        schema_name = (response_format.get("json_schema") or {}).get("name")
        messages = [m for m in body.get("messages", []) if m.get("role") != "system"]
        system = "\n".join(
            str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "system"
        )
        if schema_name:
            kind = str(schema_name).removeprefix("record_")
    user_messages = [m for m in messages if m.get("role") == "user"]
    user_texts = tuple(_message_text(m.get("content", "")) for m in user_messages)
    first = user_texts[0] if user_texts else ""
    # The request kind closes the first user message, after every data block.
    named_kinds = _REQUEST_KIND.findall(_BLOCK.sub("", first)) or _REQUEST_KIND.findall(str(system))
    if named_kinds:
        kind = named_kinds[-1]
    # The prompt names the genuine block id (the first line of the user message, or the
    # system prompt); a block the data forged has another.
    named = _NAMED_NONCE.search(first.split("\n", 1)[0])
    declared = named or _DECLARED_NONCE.search(str(system))
    blocks = list(_BLOCK.finditer(first))
    nonce = declared.group("id") if declared else (blocks[0].group("id") if blocks else None)
    data: dict[str, list[str]] = {}
    for match in blocks:
        if match.group("id") == nonce:
            data.setdefault(match.group("field"), []).append(match.group("text"))
    return FakeCall(
        api=api,
        kind=kind,
        body=body,
        system=str(system),
        user=first,
        data=data,
        nonce=nonce,
        reasks=max(0, len(user_messages) - 1),
        number=number,
        user_messages=user_texts,
    )


def _as_the_model_answers(
    dialect: str, body: dict[str, Any], reply: dict[str, Any] | Raw
) -> dict[str, Any] | Raw:
    """``reply`` as a small local model gives it: fitting the schema only when constrained.

    OpenAI's models follow the schema in the prompt whatever the format; behind a local
    server a bare ``json_object`` constrains to any object (the model closes it at once,
    ``{}``) and no format gets prose.
    """
    mode = structured_output_of(body)
    if dialect == "openai":
        return reply
    if mode in DIALECTS[dialect].honours:
        if isinstance(reply, Raw) or _is_probe(body):
            return reply
        return _as_constrained_to(sent_schema(body), reply)
    if mode in ("json_object", "json_object_schema"):
        return {}
    return Raw("Sure! Here is my assessment of the answer.")


def chat_response(
    api: str, body: dict[str, Any], call: FakeCall, reply: dict[str, Any] | Raw, cache: CacheUse
) -> dict[str, Any]:
    """The Messages or Chat Completions response body carrying ``reply``, with its usage."""
    output_text = reply.text if isinstance(reply, Raw) else json.dumps(reply, ensure_ascii=False)
    input_tokens = input_tokens_of(api, body)
    output_tokens = estimate_tokens(output_text) + 1
    model = str(body.get("model", "fake"))
    number = call.number
    if api == "anthropic":
        content: list[dict[str, Any]]
        tool_names = [str(tool.get("name", "")) for tool in body.get("tools") or []]
        if isinstance(reply, Raw) or not tool_names:
            content = [{"type": "text", "text": output_text}]
            stop_reason = "end_turn"
        else:
            wanted = f"record_{call.kind}"
            name = wanted if wanted in tool_names else tool_names[0]
            content = [
                {"type": "tool_use", "id": f"toolu_fake_{number}", "name": name, "input": reply}
            ]
            stop_reason = "tool_use"
        return {
            "id": f"msg_fake_{number}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens - cache.read - cache.written,
                "cache_creation_input_tokens": cache.written,
                "cache_read_input_tokens": cache.read,
                "output_tokens": output_tokens,
            },
        }
    message: dict[str, Any] = {"role": "assistant", "content": output_text}
    finish_reason = "stop"
    tools = body.get("tools") or []
    if tools and not isinstance(reply, Raw):
        name = str(tools[0].get("function", {}).get("name", ""))
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_fake_{number}",
                    "type": "function",
                    "function": {"name": name, "arguments": output_text},
                }
            ],
        }
        finish_reason = "tool_calls"
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": input_tokens,
            "completion_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
            "prompt_tokens_details": {"cached_tokens": cache.read, "audio_tokens": 0},
        },
    }


def _jsonl(lines: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()


@dataclass
class FakeBatch:
    """A batch job on the fake server.

    Attributes:
        id: ``msgbatch_fake_…`` (Anthropic) or ``batch_fake_…`` (OpenAI).
        api: ``anthropic`` or ``openai``.
        requests: (custom id, request body) in submission order.
        polls: status polls so far.
        done: requests processed so far.
        canceling: a cancel request arrived.
        ended: processing is over; ``results`` holds every request's outcome.
        results: custom id -> (``succeeded`` / ``errored`` / ``expired`` / ``canceled``,
            the response body or the error message).
    """

    id: str
    api: str
    requests: list[tuple[str, dict[str, Any]]]
    polls: int = 0
    done: int = 0
    canceling: bool = False
    ended: bool = False
    results: dict[str, tuple[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()

    def cancel(self) -> None:
        """Stop processing; the next poll ends the batch with the rest canceled."""
        with self.lock:
            if not self.ended:
                self.canceling = True

    def tally(self, result: str) -> int:
        """How many requests ended with ``result``."""
        return sum(1 for outcome, _ in self.results.values() if outcome == result)

    def describe(self, base_url: str) -> dict[str, Any]:
        """The batch object the API returns."""
        total = len(self.requests)
        if self.api == "anthropic":
            status = "ended" if self.ended else "canceling" if self.canceling else "in_progress"
            return {
                "id": self.id,
                "type": "message_batch",
                "processing_status": status,
                "request_counts": {
                    "processing": total - self.done if not self.ended else 0,
                    "succeeded": self.tally("succeeded"),
                    "errored": self.tally("errored"),
                    "canceled": self.tally("canceled"),
                    "expired": self.tally("expired"),
                },
                "created_at": "2026-01-01T00:00:00Z",
                "expires_at": "2026-01-02T00:00:00Z",
                "ended_at": "2026-01-01T00:01:00Z" if self.ended else None,
                "cancel_initiated_at": "2026-01-01T00:00:30Z" if self.canceling else None,
                "archived_at": None,
                "results_url": (
                    f"{base_url}/v1/messages/batches/{self.id}/results" if self.ended else None
                ),
            }
        if not self.ended:
            status = "cancelling" if self.canceling else "in_progress"
        elif self.canceling:
            status = "cancelled"
        elif self.tally("expired"):
            status = "expired"
        else:
            status = "completed"
        succeeded = self.tally("succeeded")
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
            "input_file_id": "file-fake-input",
            "status": status,
            "created_at": 0,
            "output_file_id": f"file-out-{self.id}" if self.ended else None,
            "error_file_id": f"file-err-{self.id}" if self.ended else None,
            "request_counts": {
                "total": total,
                "completed": succeeded if self.ended else self.done,
                "failed": total - succeeded if self.ended else 0,
            },
        }

    def result_lines(self) -> list[dict[str, Any]]:
        """The Anthropic results file, one line per request."""
        lines: list[dict[str, Any]] = []
        for custom_id, (outcome, payload) in self.results.items():
            result: dict[str, Any] = {"type": outcome}
            if outcome == "succeeded":
                result["message"] = payload
            elif outcome == "errored":
                result["error"] = {
                    "type": "error",
                    "error": {"type": "api_error", "message": payload or "fake batch error"},
                }
            lines.append({"custom_id": custom_id, "result": result})
        return lines

    def openai_lines(self, *, errors: bool) -> list[dict[str, Any]]:
        """The OpenAI output file (``errors`` False) or error file lines."""
        lines: list[dict[str, Any]] = []
        for number, (custom_id, (outcome, payload)) in enumerate(self.results.items(), 1):
            if (outcome == "succeeded") == errors:
                continue
            line: dict[str, Any] = {"id": f"batch_req_{number}", "custom_id": custom_id}
            if outcome == "succeeded":
                line["response"] = {"status_code": 200, "request_id": f"req_{number}"}
                line["response"]["body"] = payload
                line["error"] = None
            elif outcome == "errored":
                message = payload or "fake batch error"
                line["response"] = {
                    "status_code": 500,
                    "request_id": f"req_{number}",
                    "body": {"error": {"message": message, "type": "server_error"}},
                }
                line["error"] = None
            else:
                code = "batch_expired" if outcome == "expired" else "batch_cancelled"
                line["response"] = None
                line["error"] = {"code": code, "message": f"This request was {outcome}."}
            lines.append(line)
        return lines


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops connection attempts when a judge opens dozens of
    # connections at once, and each dropped SYN costs the client a one-second retransmit.
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out hangs up mid-request: that is the fault under test, and
        # the traceback socketserver would print lands in the output of the run under test.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


#: Fails every reply model: each kind finds a required field of the wrong type or missing
#: (CorrectnessClasses, whose lists all have defaults, through its ``tp``).
_SCHEMA_INVALID: dict[str, Any] = {
    "claims": "not a list",
    "verdicts": "not a list",
    "rating": 99,
    "tp": "not a list",
}


def _make_handler(server: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # The headers and the body go out in two writes on a kept-alive connection: with
        # Nagle's algorithm the body waits for the client's delayed ACK, 40 ms per reply.
        disable_nagle_algorithm = True
        _request_headers: dict[str, str]
        _raw: bytes = b""

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, code: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _json(self, code: int, data: Any, headers: dict[str, str] | None = None) -> None:
            self._send(code, json.dumps(data, ensure_ascii=False).encode("utf-8"), headers)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length)
            headers = {name.lower(): value for name, value in self.headers.items()}
            self._request_headers = headers
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            self._raw = raw
            recorded = Recorded("POST", self.path, headers, raw, body, time.monotonic())
            with server._lock:
                server.requests.append(recorded)
                server.in_flight += 1
                server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
            try:
                self._handle(headers, body)
            finally:
                recorded.answered_s = time.monotonic()
                with server._lock:
                    server.in_flight -= 1

        def _error(self, api: str, code: int, message: str, headers: dict[str, str]) -> None:
            if server.echo_key:
                key = _presented_key(self._request_headers)
                message = f"{message} (the key presented was {key})"
                headers = {**headers, "x-echoed-key": key}
            if api == "anthropic":
                kinds = {
                    401: "authentication_error",
                    429: "rate_limit_error",
                    400: "invalid_request_error",
                }
                payload = {
                    "type": "error",
                    "error": {"type": kinds.get(code, "api_error"), "message": message},
                }
            else:
                payload = {"error": {"message": message, "type": "error", "code": str(code)}}
            self._json(code, payload, headers)

        def _structured_output(self, body: dict[str, Any]) -> bool:
            """Answer a refused format or a probe as the dialect does; True if answered."""
            dialect = DIALECTS[server.dialect]
            mode = structured_output_of(body)
            if mode in dialect.refuses:
                with server._lock:
                    if _is_probe(body):
                        server.probes += 1
                    else:
                        server.refusals += 1
                code, message = dialect.refuses[mode]
                self._error("openai", code, message, {})
                return True
            if not _is_probe(body):
                return False
            with server._lock:
                server.probes += 1
            reply: dict[str, Any] | Raw = (
                _probe_reply(body) if mode in dialect.honours else Raw("Hello!")
            )
            reply = _as_the_model_answers(server.dialect, body, reply)
            call = _call_of("openai", body, 0)
            self._json(200, chat_response("openai", body, call, reply, CacheUse()))
            return True

        def do_GET(self) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            self._request_headers = headers
            recorded = Recorded("GET", self.path, headers, b"", None, time.monotonic())
            with server._lock:
                server.requests.append(recorded)
            try:
                api = (
                    "openai" if self.path.startswith(("/v1/batches", "/v1/files")) else "anthropic"
                )
                if not server._authorised(headers):
                    self._error(api, 401, "invalid x-api-key", {})
                    return
                self._batch_route("GET", api, None)
            finally:
                recorded.answered_s = time.monotonic()

        def _batch_route(self, method: str, api: str, body: Any) -> None:
            """The batch and file endpoints of both APIs."""
            parts = self.path.split("?", 1)[0].strip("/").split("/")
            if api == "anthropic":
                found = server.batches.get(parts[3]) if len(parts) > 3 else None
            else:
                found = server.batches.get(parts[2]) if len(parts) > 2 else None
            if parts in (["v1", "messages", "batches"], ["v1", "batches"]) and method == "POST":
                created = server._create_batch(api, body)
                if isinstance(created, str):
                    self._error(api, 400, created, {})
                else:
                    self._json(200, created.describe(server.url))
                return
            if parts == ["v1", "files"] and method == "POST":
                self._json(200, server._store_file(self.headers.get("content-type", ""), self._raw))
                return
            if parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
                data = server.files.get(parts[2])
                if data is None:
                    self._error(api, 404, f"no file {parts[2]}", {})
                else:
                    self._send(200, data, {"content-type": "application/octet-stream"})
                return
            if found is None:
                self._error(api, 404, f"no route or batch {self.path}", {})
                return
            tail = parts[4:] if api == "anthropic" else parts[3:]
            if method == "POST" and tail == ["cancel"]:
                found.cancel()
                self._json(200, found.describe(server.url))
            elif method == "GET" and tail == ["results"] and found.ended:
                lines = "".join(json.dumps(line) + "\n" for line in found.result_lines())
                self._send(200, lines.encode("utf-8"), {"content-type": "application/binary"})
            elif method == "GET" and not tail:
                if server.batch_status_error is not None:
                    code = server.batch_status_error
                    self._error(api, code, f"fake HTTP {code}", {})
                    return
                server._advance(found)
                self._json(200, found.describe(server.url))
            else:
                self._error(api, 404, f"no route {self.path}", {})

        def _handle(self, headers: dict[str, str], body: Any) -> None:
            if self.path.startswith(("/v1/messages/batches", "/v1/batches", "/v1/files")):
                api = "anthropic" if self.path.startswith("/v1/messages") else "openai"
                if not server._authorised(headers):
                    self._error(api, 401, "invalid x-api-key", {})
                    return
                self._batch_route("POST", api, body)
                return
            api = "anthropic" if self.path.endswith("/messages") else "openai"
            if not server._authorised(headers):
                self._error(api, 401, "invalid x-api-key", {})
                return
            if not isinstance(body, dict):
                self._error(api, 400, "the request body is not JSON", {})
                return
            if self.path.endswith("/embeddings"):
                texts = body.get("input")
                texts = [texts] if isinstance(texts, str) else list(texts or [])
                self._json(
                    200,
                    {
                        "object": "list",
                        "model": body.get("model", "fake-embedding"),
                        "data": [
                            {"object": "embedding", "index": i, "embedding": embedding(str(t))}
                            for i, t in enumerate(texts)
                        ],
                        "usage": {
                            "prompt_tokens": sum(estimate_tokens(str(t)) for t in texts),
                            "total_tokens": sum(estimate_tokens(str(t)) for t in texts),
                        },
                    },
                )
                return
            if self.path == EVALUATE_PATH:
                self._evaluate(body)
                return
            if self.path not in CHAT_PATHS:
                self._error(api, 404, f"no route {self.path}", {})
                return
            if api == "openai" and self._structured_output(body):
                return
            number, fault = server._next_call()
            # The provider reads its prompt cache when the request arrives; what it writes
            # is readable once the answer goes out.
            cache_use = server._cache_use(api, body)
            if server.latency_s:
                time.sleep(server.latency_s)
            if (
                api == "anthropic"
                and server.reject_forced_tool_choice
                and (body.get("tool_choice") or {}).get("type") in ("tool", "any")
            ):
                self._error(
                    api, 400, "tool_choice: forced tool use is not supported for this model", {}
                )
                return
            if fault is not None and fault.kind == "status":
                extra = {"retry-after": fault.retry_after} if fault.retry_after else {}
                self._error(api, fault.status, f"fake HTTP {fault.status}", extra)
                return
            if fault is not None and fault.kind == "hang":
                server._stopping.wait(fault.hang_s)
                self._error(api, 504, "fake hang ended", {})
                return
            if fault is not None and fault.kind == "malformed":
                self._send(200, b'{"this is": not json')
                return
            call = _call_of(api, body, number)
            reply: dict[str, Any] | Raw
            reply = _SCHEMA_INVALID if fault is not None else server._noisy(server.responder(call))
            if api == "openai":
                reply = _as_the_model_answers(server.dialect, body, reply)
            server.cache.store(cache_use)
            self._json(200, chat_response(api, body, call, reply, cache_use))

        def _evaluate(self, body: dict[str, Any]) -> None:
            """The evaluation service: the chat endpoints' replies and faults, its own shape."""
            number, fault = server._next_call()
            if server.latency_s:
                time.sleep(server.latency_s)
            if fault is not None and fault.kind == "status":
                extra = {"retry-after": fault.retry_after} if fault.retry_after else {}
                self._json(fault.status, {"error": f"fake HTTP {fault.status}"}, extra)
                return
            if fault is not None and fault.kind == "hang":
                server._stopping.wait(fault.hang_s)
                self._json(504, {"error": "fake hang ended"})
                return
            if fault is not None and fault.kind == "malformed":
                self._send(200, b'{"this is": not json')
                return
            call = _call_of("openai", body, number)
            reply = _SCHEMA_INVALID if fault is not None else server._noisy(server.responder(call))
            output = reply.text if isinstance(reply, Raw) else reply
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            usage = {
                "input_tokens": input_tokens_of("openai", body),
                "output_tokens": estimate_tokens(text) + 1,
            }
            self._json(200, {"output": output, "usage": usage})

    return Handler


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A running fake LLM server with the default responder; stopped after the test."""
    with FakeLLM() as server:
        yield server
