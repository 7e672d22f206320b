"""How the OpenAI-compatible judge asks a server for a reply that fits the schema.

Servers that speak Chat Completions differ in the structured output they accept:

- ``json_schema``: ``response_format={"type": "json_schema", "json_schema": {…}}`` — OpenAI,
  vLLM, Ollama, LM Studio, llama.cpp's own server. Decoding is constrained to the schema.
- ``json_object_schema``: ``{"type": "json_object", "schema": {…}}`` — llama-cpp-python's
  dialect (and llama.cpp's server); also constrained to the schema.
- ``tools``: the schema as a function the request names in ``tool_choice``; servers that
  constrain a named tool call (vLLM, llama-cpp-python) fill its arguments to the schema.
- ``json_object``: ``{"type": "json_object"}`` — any JSON object, the schema only in the
  prompt. Right for OpenAI's own API, whose prompt cache a per-kind schema would break
  (it renders the schema before the system message), and the choice of ``auto`` there.
  A local server constrains it to *any* object, so a small model answers ``{}``.
- ``none``: no format; the reply is parsed as JSON all the same.

``auto`` keeps ``json_object`` for OpenAI's own API. For any other base URL it probes the
server once, with a tiny request per mode (a one-field schema whose only valid value the
prompt does not ask for), and takes the first mode whose reply is that value: the first
that really constrains decoding to the schema. The choice is kept per base URL and model
in ``<cache_dir>/structured_output/``, so later runs send no probe.

A server that refuses a mode answers 400, 422 or even 500 (llama-cpp-python's request
validation); whatever the status, an error whose body names ``response_format`` (or
``tools``, or the mode's own name) is a refused format: the judge steps down to the next
mode at once, without spending a retry on it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from ..text_safety import json_text

__all__ = [
    "PROBED_MODES",
    "STRUCTURED_OUTPUT_MODES",
    "FormatChoice",
    "StructuredOutput",
    "StructuredOutputMode",
    "choose_structured_output",
    "format_arguments",
    "is_openai_api",
    "names_refused_format",
    "next_mode",
]

#: The setting's values; ``auto`` is resolved to one of the others before any request.
StructuredOutput = Literal[
    "auto", "json_schema", "json_object_schema", "json_object", "tools", "none"
]
StructuredOutputMode = Literal["json_schema", "json_object_schema", "json_object", "tools", "none"]

STRUCTURED_OUTPUT_MODES: tuple[StructuredOutput, ...] = (
    "auto",
    "json_schema",
    "json_object_schema",
    "json_object",
    "tools",
    "none",
)

#: Most constrained first: the order ``auto`` probes and a refused mode steps down in.
PROBED_MODES: tuple[StructuredOutputMode, ...] = (
    "json_schema",
    "json_object_schema",
    "tools",
    "json_object",
    "none",
)

#: Hosts of OpenAI's own API, where ``json_object`` keeps the prompt cache working.
_OPENAI_HOSTS = ("api.openai.com",)
_OPENAI_HOST_SUFFIXES = (".openai.azure.com",)

_PROBE_FIELD = "rag_gate_probe"
_PROBE_VALUE = "constrained"
_PROBE_NAME = "record_rag_gate_probe"
_PROBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {_PROBE_FIELD: {"type": "string", "enum": [_PROBE_VALUE]}},
    "required": [_PROBE_FIELD],
    "additionalProperties": False,
}
# The prompt asks for something else, so only a server that constrains decoding to the
# schema returns the probe's value.
_PROBE_MESSAGES = [
    {"role": "system", "content": "rag-gate structured output probe. Answer in one word."},
    {"role": "user", "content": "Say hello."},
]
#: Enough for the whole probe object in any current tokenizer, little enough to be quick.
_PROBE_MAX_TOKENS = 48

#: Statuses that are never a refused format: credentials, rate limits, timeouts.
_NOT_A_REFUSAL = frozenset({401, 403, 408, 409, 429})


@dataclass(frozen=True)
class FormatChoice:
    """The structured-output mode a run uses, and a sentence saying why."""

    mode: StructuredOutputMode
    reason: str


def is_openai_api(base_url: str | None) -> bool:
    """Whether ``base_url`` is OpenAI's own API (None: the SDK's default, which is).

    >>> is_openai_api(None), is_openai_api("https://api.openai.com/v1")
    (True, True)
    >>> is_openai_api("http://127.0.0.1:8000/v1")
    False
    """
    if base_url is None:
        return True
    host = (urlsplit(base_url).hostname or "").lower()
    return host in _OPENAI_HOSTS or host.endswith(_OPENAI_HOST_SUFFIXES)


def next_mode(
    mode: StructuredOutputMode, refused: frozenset[StructuredOutputMode]
) -> StructuredOutputMode | None:
    """The mode to use after ``mode`` was refused: the most constrained one not yet refused.

    >>> next_mode("json_schema", frozenset({"json_schema"}))
    'json_object_schema'
    >>> next_mode("json_object", frozenset({"json_object"}))
    'json_schema'
    >>> next_mode("none", frozenset(PROBED_MODES)) is None
    True
    """
    for candidate in PROBED_MODES:
        if candidate not in refused and candidate != mode:
            return candidate
    return None


def names_refused_format(status: int | None, problem: str, mode: StructuredOutputMode) -> bool:
    """Whether an error (of any 4xx or 5xx status) is the server refusing ``mode``.

    >>> names_refused_format(500, "Input should be 'text' or 'json_object' ... "
    ...     "'loc': ('body', 'response_format', 'type')", "json_schema")
    True
    >>> names_refused_format(429, "response_format", "json_schema")
    False
    >>> names_refused_format(400, "'tool_choice' is not supported", "tools")
    True
    """
    if mode == "none" or status is None or status < 400 or status in _NOT_A_REFUSAL:
        return False
    text = problem.lower()
    if mode == "tools":
        return "tool" in text
    words = ("response_format", "json_schema") if mode == "json_schema" else ("response_format",)
    return any(word in text for word in words)


def format_arguments(
    mode: StructuredOutputMode, name: str, schema: Mapping[str, Any]
) -> dict[str, Any]:
    """The Chat Completions arguments that ask for a reply fitting ``schema`` in ``mode``.

    >>> format_arguments("json_object_schema", "record_x", {"type": "object"})
    {'response_format': {'type': 'json_object', 'schema': {'type': 'object'}}}
    >>> format_arguments("none", "record_x", {})
    {}
    """
    if mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    if mode == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": dict(schema), "strict": False},
            }
        }
    if mode == "json_object_schema":
        return {"response_format": {"type": "json_object", "schema": dict(schema)}}
    if mode == "tools":
        return {
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": name,
                        "description": "Record the reply.",
                        "parameters": dict(schema),
                    },
                }
            ],
            "tool_choice": {"type": "function", "function": {"name": name}},
        }
    return {}


def choose_structured_output(
    setting: StructuredOutput,
    *,
    base_url: str | None,
    model: str,
    api_key: str,
    timeout_s: float,
    cache_dir: Path | None,
    probe: bool = True,
) -> FormatChoice:
    """Resolve the ``structured_output`` setting to the mode the run uses.

    Args:
        setting: The configured value.
        base_url: The server (None: OpenAI's API).
        model: The judge model, sent with the probe and part of the cache key.
        api_key: The key the probe presents (never written anywhere).
        timeout_s: The probe's per-request timeout.
        cache_dir: Where the probe's outcome is kept; None keeps it nowhere.
        probe: False when nothing may be sent (a read-mode cache replays).
    """
    if setting != "auto":
        return FormatChoice(setting, f"structured output {setting} (set in the config)")
    if is_openai_api(base_url):
        return FormatChoice(
            "json_object",
            "structured output json_object (auto: OpenAI's API, the reply schema in the "
            "prompt keeps its prompt cache)",
        )
    assert base_url is not None
    where = _choice_path(cache_dir, base_url, model)
    cached = _read_choice(where, base_url, model)
    if cached is not None:
        return cached
    if not probe:
        return FormatChoice(
            "json_schema",
            "structured output json_schema (auto: not probed, since a read-mode cache "
            "sends nothing)",
        )
    choice, final = _probe(base_url=base_url, model=model, api_key=api_key, timeout_s=timeout_s)
    if final and where is not None and _write_choice(where, base_url, model, choice):
        return FormatChoice(choice.mode, f"{choice.reason[:-1]}; probed once, kept in {where})")
    return choice


def _probe(
    *, base_url: str, model: str, api_key: str, timeout_s: float
) -> tuple[FormatChoice, bool]:
    """Ask once per mode, most constrained first; returns the choice and whether to keep it."""
    import openai

    client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)
    outcomes: list[str] = []
    accepted: list[StructuredOutputMode] = []
    try:
        for mode in PROBED_MODES[:-1]:
            arguments = {
                "model": model,
                "messages": _PROBE_MESSAGES,
                "max_tokens": _PROBE_MAX_TOKENS,
                "temperature": 0,
                **format_arguments(mode, _PROBE_NAME, _PROBE_SCHEMA),
            }
            try:
                completion = client.chat.completions.create(**arguments)
            except openai.APIStatusError as error:
                if not names_refused_format(error.status_code, str(error), mode):
                    return _probe_failed(base_url, f"HTTP {error.status_code}"), False
                outcomes.append(f"{mode} refused (HTTP {error.status_code})")
                continue
            except openai.APIError as error:
                return _probe_failed(base_url, type(error).__name__), False
            accepted.append(mode)
            if _constrained(completion):
                tried = "; ".join(outcomes)
                before = f" after {tried}" if tried else ""
                return (
                    FormatChoice(
                        mode,
                        f"structured output {mode} (auto: the server at {base_url} "
                        f"constrains replies to the schema with it{before})",
                    ),
                    True,
                )
            outcomes.append(f"{mode} accepted but not constrained")
    finally:
        client.close()
    fallback: StructuredOutputMode = "json_object" if "json_object" in accepted else "none"
    return (
        FormatChoice(
            fallback,
            f"structured output {fallback} (auto: no mode constrains the replies of the "
            f"server at {base_url} to the schema: {'; '.join(outcomes)}; replies are "
            "validated and re-asked)",
        ),
        True,
    )


def _probe_failed(base_url: str, what: str) -> FormatChoice:
    return FormatChoice(
        "json_schema",
        f"structured output json_schema (auto: the probe of {base_url} failed with {what}, "
        "so nothing was decided or kept; a refused format still steps down)",
    )


def _constrained(completion: Any) -> bool:
    """Whether the probe's reply is the one value its schema allows (and not a greeting)."""
    choices = getattr(completion, "choices", None) or []
    if not choices:
        return False
    message = choices[0].message
    texts = [message.content or ""]
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        texts.append(str(getattr(function, "arguments", "") or ""))
    for text in texts:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if data == {_PROBE_FIELD: _PROBE_VALUE}:
            return True
    return False


def _choice_path(cache_dir: Path | None, base_url: str, model: str) -> Path | None:
    if cache_dir is None:
        return None
    digest = hashlib.sha256(json_text([base_url, model]).encode("utf-8")).hexdigest()
    return cache_dir / "structured_output" / f"{digest[:24]}.json"


def _read_choice(path: Path | None, base_url: str, model: str) -> FormatChoice | None:
    """A kept probe outcome; anything unreadable or for another server is no outcome."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("base_url") != base_url or data.get("model") != model:
        return None
    mode, reason = data.get("mode"), data.get("reason")
    if mode not in PROBED_MODES or not isinstance(reason, str):
        return None
    return FormatChoice(mode, f"{reason.removesuffix(')')}; probed before, read from {path})")


def _write_choice(path: Path, base_url: str, model: str, choice: FormatChoice) -> bool:
    """Keep the probe's outcome (never the key); a cache that cannot be written is no error."""
    record = {
        "base_url": base_url,
        "model": model,
        "mode": choice.mode,
        "reason": choice.reason,
        "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(record, stream, indent=1)
        os.replace(temporary, path)
    except OSError:
        return False
    return True
