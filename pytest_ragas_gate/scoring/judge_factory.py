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
from typing import TYPE_CHECKING, Any, cast

from ..exceptions import JudgeError, UsageError
from ..judges.base import (
    NO_CONTEXT,
    Answer,
    AskContext,
    Embedded,
    Judge,
    JudgeCapabilities,
    JudgeInfo,
    ReplyT,
    no_embeddings,
)
from ..judges.cache import JudgeCache
from ..judges.metered import MeteredJudge
from ..judges.pricing import PriceTable
from ..judges.registry import AUTO, BUILTIN_JUDGE_KINDS, JudgeRegistry, JudgeSetup
from ..judges.requests import JudgeRequest
from ..settings.config import GateConfig

if TYPE_CHECKING:
    from ..judges.sdk_judge import SdkJudge
    from ..judges.structured_output import StructuredOutput

#: Sent to keyless OpenAI-compatible servers, which ignore it (the SDK requires a key).
PLACEHOLDER_OPENAI_KEY = "no-key-needed"

#: Replays a recorded provider's replies: it pairs requests as that judge did, so the
#: requests (and their cache keys) are the recorded ones.
_REPLAYING = JudgeCapabilities(pairs_requests=True, replay_only=True)


class ReplayOnlyJudge:
    """Stands in for a judge that has no key in read mode: it never sends anything.

    ``note`` says so, after the reason the judge was chosen for.
    """

    def __init__(self, kind: str, model: str, note: str = "") -> None:
        self._kind = kind
        self._model = model
        self.note = note

    @property
    def kind(self) -> str:
        """The recorded judge's kind."""
        return self._kind

    @property
    def model(self) -> str:
        """The recorded judge's model."""
        return self._model

    @property
    def capabilities(self) -> JudgeCapabilities:
        """Replay only."""
        return _REPLAYING

    async def ask(
        self, request: JudgeRequest[ReplyT], *, context: AskContext = NO_CONTEXT
    ) -> Answer[ReplyT]:
        """Never called on a read-mode cache; refuses rather than sending without a key."""
        raise JudgeError(
            f"The {self._kind} judge has no API key, so the {request.kind} request can only "
            "be replayed from the cache; run once with a key in readwrite mode to record it."
        )

    async def embed(self, texts: Any, *, context: AskContext) -> Embedded:
        """Nothing to embed with."""
        raise no_embeddings(self._kind)

    async def aclose(self) -> None:
        """Nothing to release."""


def _offline(setup: JudgeSetup) -> Judge:
    from ..judges.offline.judge import OfflineJudge

    return OfflineJudge(citation_pattern=setup.options.get("citation_pattern"))


def _transport_settings(setup: JudgeSetup) -> dict[str, Any]:
    # Retries, limits and prompts are the LLM judges' own: the offline judge loads none.
    from ..judges.transport import AdaptiveLimiter, RateLimiter, RetryPolicy

    rate = setup.requests_per_minute
    return {
        "timeout_s": setup.timeout_s,
        "max_retries": setup.max_retries,
        "retry_policy": RetryPolicy(
            max_retries=setup.max_retries, base_delay_s=setup.retry_backoff_s
        ),
        "max_reasks": setup.max_reasks,
        "limiter": AdaptiveLimiter(setup.concurrency),
        "rate_limiter": RateLimiter(rate) if rate else None,
        "seed": setup.seed,
    }


def _anthropic(setup: JudgeSetup) -> Judge:
    from ..judges.anthropic_judge import DEFAULT_ANTHROPIC_MODEL, AnthropicJudge

    model = setup.model or DEFAULT_ANTHROPIC_MODEL
    key = setup.variable("ANTHROPIC_API_KEY")
    if key is None and not setup.replay:
        raise UsageError(
            f"{setup.selected_by} needs ANTHROPIC_API_KEY in the environment; set "
            "it, replay a recorded cache with --rag-gate-set cache.mode=read, or use "
            "--rag-gate-judge offline."
        )
    if key is None:
        note = " (no ANTHROPIC_API_KEY: replaying the read-mode cache, nothing is sent)"
        return ReplayOnlyJudge("anthropic", model, note)
    return AnthropicJudge(
        model,
        api_key=key,
        base_url=setup.variable("ANTHROPIC_BASE_URL"),
        **_transport_settings(setup),
    )


def _openai(setup: JudgeSetup) -> Judge:
    key = setup.variable("OPENAI_API_KEY")
    base_url = setup.variable("OPENAI_BASE_URL")
    if key is None and base_url is None and not setup.replay:
        raise UsageError(
            f"{setup.selected_by} needs OPENAI_API_KEY, or OPENAI_BASE_URL for a "
            "server without keys (vLLM, Ollama, llama.cpp); set one, or replay a "
            "recorded cache with --rag-gate-set cache.mode=read."
        )
    from ..judges.openai_judge import DEFAULT_OPENAI_MODEL, OpenAIJudge

    model = setup.model or DEFAULT_OPENAI_MODEL
    if key is None and base_url is None:
        note = " (no OPENAI_API_KEY: replaying the read-mode cache, nothing is sent)"
        return ReplayOnlyJudge("openai", model, note)
    from ..judges.structured_output import choose_structured_output

    choice = choose_structured_output(
        cast("StructuredOutput", setup.options.get("structured_output") or "auto"),
        base_url=base_url,
        model=model,
        api_key=key or PLACEHOLDER_OPENAI_KEY,
        timeout_s=setup.timeout_s,
        cache_dir=setup.cache_dir,
        probe=not setup.replay,
    )
    return OpenAIJudge(
        model,
        api_key=key or PLACEHOLDER_OPENAI_KEY,
        base_url=base_url,
        embedding_model=setup.options.get("embedding_model"),
        structured_output=choice.mode,
        structured_output_note=choice.reason,
        **_transport_settings(setup),
    )


#: The judges the package provides, by kind.
BUILTIN_JUDGES = {"anthropic": _anthropic, "openai": _openai, "offline": _offline}
assert tuple(BUILTIN_JUDGES) == BUILTIN_JUDGE_KINDS


def builtin_judges() -> JudgeRegistry:
    """A registry of the built-in judges alone."""
    return JudgeRegistry(BUILTIN_JUDGES)


def create_judge(
    config: GateConfig,
    *,
    rootdir: Path,
    env: Mapping[str, str],
    chosen_by: str | None = None,
    judges: JudgeRegistry | None = None,
) -> tuple[MeteredJudge, JudgeInfo]:
    """Build the judge the configuration asks for, wrapped with cache, budgets and pricing.

    Args:
        config: the validated gate configuration.
        rootdir: the pytest rootdir; a relative ``cache_dir`` is taken from it.
        env: the run's environment variables, read for keys and base URLs.
        chosen_by: how the user named a judge that is not ``auto`` (e.g.
            ``RAG_GATE_JUDGE=offline``), for ``selected_by``; default the option.
        judges: the judges to choose from; default the built-in ones and, for another
            kind, those of installed packages.

    Returns:
        The metered judge (its ``cache``, ``priced`` and ``replay_only`` tell the rest) and
        the report's :class:`JudgeInfo`: kind, model, and ``selected_by``, a sentence saying
        why this judge runs.

    Raises:
        UsageError: the chosen judge cannot run (a missing key or package, an unknown kind).
    """
    replay = config.cache == "read"
    kind: str = config.judge
    if kind == AUTO:
        if env.get("ANTHROPIC_API_KEY"):
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

    if judges is None:
        judges = builtin_judges()
    if kind not in BUILTIN_JUDGE_KINDS:
        judges.register_installed()
    cache_dir = _cache_dir(config, rootdir)
    setup = JudgeSetup(
        kind=kind,
        model=config.model,
        env=env,
        replay=replay,
        selected_by=reason,
        cache_dir=cache_dir,
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
        retry_backoff_s=config.retry_backoff_s,
        max_reasks=config.max_reasks,
        concurrency=config.concurrency,
        requests_per_minute=config.requests_per_minute,
        seed=config.seed,
        options={
            "structured_output": config.structured_output,
            "embedding_model": config.embedding_model,
            "citation_pattern": config.citation_pattern,
        },
    )
    inner = judges.build(setup)
    pricing = PriceTable(config.prices)
    if kind == "offline":
        metered = MeteredJudge(
            inner, cache=None, pricing=pricing, max_calls=config.max_calls, max_cost=config.max_cost
        )
        return metered, JudgeInfo(kind="offline", model=inner.model, selected_by=reason)

    if isinstance(inner, ReplayOnlyJudge) and config.judge != AUTO:
        reason += inner.note
    cache = _judge_cache(config, cache_dir, env)
    sdk = _sdk_judge(kind, inner)
    if config.batch and sdk is not None:
        from ..judges.batching import BatchStore

        # A judge that sends nothing (replaying a read-mode cache) has nothing to batch.
        sdk.use_batches(store=BatchStore(cache_dir / "batches"), poll_s=config.batch_poll_s)
    metered = MeteredJudge(
        inner,
        cache=cache,
        pricing=pricing,
        max_calls=config.max_calls,
        max_cost=config.max_cost,
        transport_stats=sdk.transport.stats if sdk is not None else None,
        concurrency=sdk.transport.limiter.max_concurrency if sdk is not None else None,
    )
    return metered, JudgeInfo(
        kind=kind,
        model=inner.model,
        selected_by=reason,
        prompt_version=_prompt_version(kind),
        structured_output=inner.capabilities.structured_output_note,
    )


def _sdk_judge(kind: str, judge: Judge) -> SdkJudge | None:
    """The built-in judge on a provider SDK (a transport, batch mode), else None."""
    if kind not in ("anthropic", "openai"):
        return None
    from ..judges.sdk_judge import SdkJudge

    return judge if isinstance(judge, SdkJudge) else None


def _prompt_version(kind: str) -> str:
    """The built-in prompts' version for the LLM judges, which send them; else empty."""
    if kind not in BUILTIN_JUDGE_KINDS:
        return ""
    from ..judges.prompts import PROMPT_VERSION

    return PROMPT_VERSION


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
