"""The judges a run can select, keyed by kind: the built-in ones, installed packages', a conftest's.

A judge is made by a *factory*: a callable taking the :class:`JudgeSetup` (the judge
settings and the run's environment variables) and returning an object that implements
:class:`~pytest_ragas_gate.judges.base.Judge`. ``--rag-gate-judge KIND`` (or
``judge.provider: KIND``) selects the factory registered under ``KIND``.

Packages register factories under the ``pytest_ragas_gate.judges`` entry-point group (the
entry point's name is the kind); a project registers them from its ``conftest.py`` with
the ``pytest_rag_gate_judges`` hook. Installed packages are read only when the kind asked
for is not a built-in one, so a run of a built-in judge pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

from ..exceptions import ConfigError, UsageError
from .base import Judge

__all__ = [
    "AUTO",
    "BUILTIN_JUDGE_KINDS",
    "ENTRY_POINT_GROUP",
    "JudgeFactory",
    "JudgeRegistry",
    "JudgeSetup",
]

#: The entry-point group packages register judge factories under.
ENTRY_POINT_GROUP = "pytest_ragas_gate.judges"
#: The kinds the package itself provides.
BUILTIN_JUDGE_KINDS = ("anthropic", "openai", "offline")
#: Not a judge: the choice between anthropic and offline by the environment.
AUTO = "auto"


@dataclass(frozen=True)
class JudgeSetup:
    """What a judge factory is given: the judge settings and the run's environment.

    Attributes:
        kind: the kind the run selected (the factory's registered name).
        model: the configured ``judge.model``, or None for the factory's default.
        env: the run's environment variables, read for keys and endpoints (captured once
            by the plugin or the command line, never read again).
        replay: the cache mode is ``read``: nothing may be sent, and a judge without its
            key may still be built (every reply then comes from the cache).
        selected_by: why this judge runs (``--rag-gate-judge mycorp``), for messages.
        cache_dir: the judge cache's directory, for a judge that keeps files of its own.
        timeout_s: the per-request timeout.
        max_retries: transport retries per request.
        retry_backoff_s: the first backoff between two retries.
        max_reasks: how often an invalid reply is asked again.
        concurrency: the most requests in flight.
        requests_per_minute: the request rate limit, or None.
        seed: seeds any randomness (backoff jitter).
        options: the other judge settings by name (``structured_output``,
            ``embedding_model``, ``citation_pattern``), for the built-in judges.
    """

    kind: str
    model: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    replay: bool = False
    selected_by: str = ""
    cache_dir: Path = Path(".rag-gate-cache")
    timeout_s: float = 60.0
    max_retries: int = 6
    retry_backoff_s: float = 1.0
    max_reasks: int = 2
    concurrency: int = 8
    requests_per_minute: int | None = None
    seed: int | None = None
    options: Mapping[str, str | None] = field(default_factory=dict)

    def variable(self, name: str) -> str | None:
        """The environment variable ``name``, or None when unset or empty."""
        value = self.env.get(name)
        return value if value else None


JudgeFactory = Callable[[JudgeSetup], Judge]


class JudgeRegistry:
    """Judge factories by kind, each with where it came from."""

    def __init__(self, factories: Mapping[str, JudgeFactory] = {}) -> None:
        self._factories: dict[str, JudgeFactory] = {}
        self._origins: dict[str, str] = {}
        for kind, factory in factories.items():
            self.register(kind, factory, "pytest-ragas-gate")
        self._installed_read = False

    @property
    def kinds(self) -> list[str]:
        """Every registered kind, the built-in ones first."""
        return list(self._factories)

    def register(self, kind: object, factory: object, origin: str) -> None:
        """Register ``factory`` under ``kind``.

        Raises:
            ConfigError: the kind is not a plain name, is taken, or the factory is not callable.
        """
        if not isinstance(kind, str) or not kind.replace("_", "").replace("-", "").isalnum():
            raise ConfigError(
                f"{origin} registers a judge under {kind!r}; a judge kind is a name of "
                "letters, digits, '-' and '_' (it is what --rag-gate-judge selects)."
            )
        if kind == AUTO or kind in self._factories:
            taken = (
                "it chooses between anthropic and offline"
                if kind == AUTO
                else (f"{self._origins[kind]} registers it already")
            )
            raise ConfigError(
                f"{origin} registers a judge as {kind!r}, and that kind is taken: {taken}. "
                "Give the judge another kind."
            )
        if not callable(factory):
            raise ConfigError(
                f"{origin} registers {factory!r} as the {kind!r} judge; expected a factory: "
                "a callable taking a JudgeSetup and returning a judge."
            )
        self._factories[kind] = factory
        self._origins[kind] = origin

    def register_all(self, factories: object, origin: str) -> None:
        """Register a mapping of kind to factory (what the conftest hook returns)."""
        if not isinstance(factories, Mapping):
            raise ConfigError(
                f"{origin} returned {type(factories).__name__}; expected a mapping of judge "
                "kind to factory, e.g. {'mycorp': factory}."
            )
        for kind, factory in factories.items():
            self.register(kind, factory, origin)

    def register_installed(self) -> None:
        """Register the factories installed packages name under ``ENTRY_POINT_GROUP`` (once).

        Raises:
            ConfigError: an entry point fails to load, or as :meth:`register`.
        """
        if self._installed_read:
            return
        self._installed_read = True
        for entry_point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
            origin = f"entry point {entry_point.name!r} ({entry_point.value})"
            try:
                factory = entry_point.load()
            except Exception as error:
                raise ConfigError(
                    f"The judge {origin} could not be loaded ({type(error).__name__}: {error}); "
                    "fix or uninstall the package that provides it."
                ) from error
            self.register(entry_point.name, factory, f"The judge {origin}")

    def build(self, setup: JudgeSetup) -> Judge:
        """The judge of ``setup.kind``, made by its factory.

        Raises:
            UsageError: no factory has that kind, or the factory refused (a missing key
                or endpoint): its message, naming the judge.
        """
        factory = self._factories.get(setup.kind)
        if factory is None:
            raise ConfigError(unknown_judge_message(setup.kind, self.kinds))
        try:
            return factory(setup)
        except UsageError:
            raise
        except Exception as error:
            raise UsageError(
                f"The {setup.kind} judge ({self._origins[setup.kind]}) could not be made: "
                f"{error or type(error).__name__}"
            ) from error


def unknown_judge_message(kind: str, known: Iterable[str]) -> str:
    """``Input should be 'auto', 'anthropic', 'openai' or 'offline', got 'gpt'``, with a hint.

    >>> unknown_judge_message("anthropc", BUILTIN_JUDGE_KINDS)
    "Input should be 'auto', 'anthropic', 'openai' or 'offline', got 'anthropc'; did you mean 'anthropic'?"
    """  # noqa: E501
    import difflib

    choices = [AUTO, *known]
    listed = ", ".join(repr(choice) for choice in choices[:-1]) + f" or {choices[-1]!r}"
    close = difflib.get_close_matches(kind, choices, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"Input should be {listed}, got {kind!r}{hint}"
