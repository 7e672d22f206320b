"""Choosing and building the judge from the configuration and the environment.

Selection rules:

- ``auto`` (default): ``anthropic`` when ``ANTHROPIC_API_KEY`` is set, else ``offline``.
  Exception — replay: with ``cache: read`` and no key, ``auto`` selects ``anthropic``
  anyway, because a read-mode run sends nothing and replays the replies recorded by a
  keyed run (pull requests from forks get deterministic results without the secret).
- ``anthropic`` without ``ANTHROPIC_API_KEY`` is a usage error, except in ``read`` mode.
- ``openai`` without ``OPENAI_API_KEY`` and without a base URL (``OPENAI_BASE_URL``) is a
  usage error, except in ``read`` mode. With a base URL and no key (a local server such as
  Ollama or llama.cpp), a placeholder key is sent, since those servers ignore it. Its
  structured-output mode comes from ``structured_output`` (``auto`` probes a server other
  than OpenAI's once and keeps the outcome in the cache directory); the reason is the
  judge info's ``structured_output``, so the run says once which mode it uses and why.
- ``offline``: the deterministic heuristics, no key, no network, never cached.

In ``read`` mode without a key, no SDK client is created at all: the judge can only
replay, and every miss is a ``JudgeError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..exceptions import JudgeError, UsageError
from ..judges.base import Answer, Judge, JudgeInfo, ReplyT
from ..judges.cache import JudgeCache
from ..judges.metered import MeteredJudge
from ..judges.pricing import PriceTable
from ..judges.requests import JudgeRequest
from ..settings.config import GateConfig

#: Sent to keyless OpenAI-compatible servers, which ignore it (the SDK requires a key).
PLACEHOLDER_OPENAI_KEY = "no-key-needed"


class ReplayOnlyJudge:
    """Stands in for a judge that has no key in read mode: it never sends anything."""

    replay_only = True

    def __init__(self, kind: str, model: str) -> None:
        self._kind = kind
        self._model = model

    @property
    def kind(self) -> str:
        """The recorded judge's kind."""
        return self._kind

    @property
    def model(self) -> str:
        """The recorded judge's model."""
        return self._model

    async def ask(self, request: JudgeRequest[ReplyT]) -> Answer[ReplyT]:
        """Never called on a read-mode cache; refuses rather than sending without a key."""
        raise JudgeError(
            f"The {self._kind} judge has no API key, so the {request.kind} request can only "
            "be replayed from the cache; run once with a key in readwrite mode to record it."
        )

    async def aclose(self) -> None:
        """Nothing to release."""


def _env(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    return value if value else None


def create_judge(
    config: GateConfig,
    *,
    rootdir: Path,
    env: Mapping[str, str],
    chosen_by: str | None = None,
) -> tuple[MeteredJudge, JudgeInfo]:
    """Build the judge the configuration asks for, wrapped with cache, budgets and pricing.

    Args:
        config: the validated gate configuration.
        rootdir: the pytest rootdir; a relative ``cache_dir`` is taken from it.
        env: the environment (``os.environ``), read for keys and base URLs.
        chosen_by: how the user named a judge that is not ``auto`` (e.g.
            ``RAG_GATE_JUDGE=offline``), for ``selected_by``; default the option.

    Returns:
        The metered judge (its ``cache``, ``priced`` and ``replay_only`` tell the rest) and
        the report's :class:`JudgeInfo`: kind, model, and ``selected_by``, a sentence saying
        why this judge runs.

    Raises:
        UsageError: the chosen judge cannot run (a missing key or package).
    """
    replay = config.cache == "read"
    anthropic_key = _env(env, "ANTHROPIC_API_KEY")
    kind: str = config.judge
    if kind == "auto":
        if anthropic_key:
            kind, reason = "anthropic", "auto: ANTHROPIC_API_KEY is set, using the anthropic judge"
        elif replay:
            kind, reason = (
                "anthropic",
                "auto: ANTHROPIC_API_KEY is not set and the cache mode is read, replaying "
                "recorded anthropic replies (nothing is sent; a miss is an error)",
            )
        else:
            kind, reason = "offline", "auto: ANTHROPIC_API_KEY is not set, using the offline judge"
    else:
        reason = chosen_by or f"--rag-gate-judge {kind}"

    pricing = PriceTable(config.prices)
    inner: Judge
    structured_output = ""
    if kind == "offline":
        from ..judges.offline.judge import OfflineJudge

        inner = OfflineJudge(citation_pattern=config.citation_pattern)
        metered = MeteredJudge(
            inner, cache=None, pricing=pricing, max_calls=config.max_calls, max_cost=config.max_cost
        )
        return metered, JudgeInfo(kind="offline", model=inner.model, selected_by=reason)

    # Retries, limits and prompts are the LLM judges' own: the offline judge loads none.
    from ..judges.prompts import PROMPT_VERSION
    from ..judges.transport import AdaptiveLimiter, RateLimiter, RetryPolicy

    limiter = AdaptiveLimiter(config.concurrency)
    rate_limiter = RateLimiter(config.requests_per_minute) if config.requests_per_minute else None
    transport_settings: dict[str, Any] = {
        "timeout_s": config.timeout_s,
        "max_retries": config.max_retries,
        "retry_policy": RetryPolicy(
            max_retries=config.max_retries, base_delay_s=config.retry_backoff_s
        ),
        "max_reasks": config.max_reasks,
        "limiter": limiter,
        "rate_limiter": rate_limiter,
        "seed": config.seed,
    }

    if kind == "anthropic":
        from ..judges.anthropic_judge import DEFAULT_ANTHROPIC_MODEL, AnthropicJudge

        model = config.model or DEFAULT_ANTHROPIC_MODEL
        if anthropic_key is None and not replay:
            raise UsageError(
                f"{reason} needs ANTHROPIC_API_KEY in the environment; set "
                "it, replay a recorded cache with --rag-gate-set cache.mode=read, or use "
                "--rag-gate-judge offline."
            )
        if anthropic_key is None:
            inner = ReplayOnlyJudge("anthropic", model)
            if config.judge != "auto":
                reason += " (no ANTHROPIC_API_KEY: replaying the read-mode cache, nothing is sent)"
        else:
            inner = AnthropicJudge(
                model,
                api_key=anthropic_key,
                base_url=_env(env, "ANTHROPIC_BASE_URL"),
                **transport_settings,
            )
    elif kind == "openai":
        openai_key = _env(env, "OPENAI_API_KEY")
        base_url = _env(env, "OPENAI_BASE_URL")
        if openai_key is None and base_url is None and not replay:
            raise UsageError(
                f"{reason} needs OPENAI_API_KEY, or OPENAI_BASE_URL for a "
                "server without keys (vLLM, Ollama, llama.cpp); set one, or replay a "
                "recorded cache with --rag-gate-set cache.mode=read."
            )
        from ..judges.openai_judge import DEFAULT_OPENAI_MODEL, OpenAIJudge

        model = config.model or DEFAULT_OPENAI_MODEL
        if openai_key is None and base_url is None:
            inner = ReplayOnlyJudge("openai", model)
            reason += " (no OPENAI_API_KEY: replaying the read-mode cache, nothing is sent)"
        else:
            from ..judges.structured_output import choose_structured_output

            choice = choose_structured_output(
                config.structured_output,
                base_url=base_url,
                model=model,
                api_key=openai_key or PLACEHOLDER_OPENAI_KEY,
                timeout_s=config.timeout_s,
                cache_dir=_cache_dir(config, rootdir),
                probe=not replay,
            )
            structured_output = choice.reason
            inner = OpenAIJudge(
                model,
                api_key=openai_key or PLACEHOLDER_OPENAI_KEY,
                base_url=base_url,
                embedding_model=config.embedding_model,
                structured_output=choice.mode,
                **transport_settings,
            )
    else:  # pragma: no cover - GateConfig validates the judge name
        raise UsageError(f"unknown judge {kind!r}; expected auto, anthropic, openai or offline")

    cache_dir = _cache_dir(config, rootdir)
    cache = _judge_cache(config, cache_dir, env)
    if config.batch:
        _use_batches(inner, cache_dir, config.batch_poll_s)
    metered = MeteredJudge(
        inner, cache=cache, pricing=pricing, max_calls=config.max_calls, max_cost=config.max_cost
    )
    return metered, JudgeInfo(
        kind=kind,
        model=inner.model,
        selected_by=reason,
        prompt_version=PROMPT_VERSION,
        structured_output=structured_output,
    )


def _cache_dir(config: GateConfig, rootdir: Path) -> Path:
    cache_dir = Path(config.cache_dir)
    return cache_dir if cache_dir.is_absolute() else rootdir / cache_dir


def _judge_cache(config: GateConfig, cache_dir: Path, env: Mapping[str, str]) -> JudgeCache | None:
    """The reply cache, signing what it writes and verifying what it replays when set up to."""
    if config.cache == "off":
        return None
    # Only a cached judge signs or verifies; the offline judge and cache: off never do.
    from ..judges.cache_signing import EntryVerifier, signer_from_env

    public_key = config.cache_public_key
    return JudgeCache(
        cache_dir,
        config.cache,
        signer=signer_from_env(env, public_key) if config.cache == "readwrite" else None,
        verifier=EntryVerifier(public_key) if public_key is not None else None,
    )


def _use_batches(inner: Judge, cache_dir: Path, poll_s: float) -> None:
    """Batch mode: the judge sends through its provider's batch API, saving jobs to resume.

    A judge that sends nothing (replaying a read-mode cache) has nothing to batch.
    """
    from ..judges.batching import BatchStore

    use_batches = getattr(inner, "use_batches", None)
    if use_batches is not None:
        use_batches(store=BatchStore(cache_dir / "batches"), poll_s=poll_s)
