"""Fixtures shared by the test modules, and the hypothesis profiles the suite runs under.

Hypothesis profiles (``HYPOTHESIS_PROFILE`` picks one; otherwise ``ci`` when ``CI`` is set,
else ``dev``):

- ``dev``: few examples, the same ones on every run and every machine, so the suite a
  contributor runs before a push only fails because of the change being pushed.
- ``ci``: the examples of ``dev``, with the reproduction blob of any failure printed.
- ``explore``: a long random search that draws new inputs on every run and keeps the
  failures it finds in ``.hypothesis/`` to replay them first next time.
"""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest

# Imported once here so in-process pytester runs never re-import it: PyYAML's C loader
# keeps the node classes of the first import.
import yaml  # noqa: F401
from fakellm import fake_llm

# The same for requests, which the OTLP/HTTP exporter sends with: an in-process run that
# imported only part of it would leave its cookie classes from two imports of
# http.cookiejar ("You can only merge into CookieJar" in a later test).
try:
    import requests  # noqa: F401
except ImportError:  # the otel extra is not installed: its tests skip
    pass
from hypothesis import HealthCheck, settings

__all__ = ["fake_llm"]


def _close_rerunfailures_connections_that_ended() -> None:
    """Make pytest-rerunfailures before 16.7 stop reading a connection its peer closed.

    Those releases read a closed socket in a loop forever. Every in-process run with
    ``-n`` leaves one such thread behind in this process, and on the lowest pytest (which
    no release with the fix supports) a few dozen of them took the suite from two minutes
    to nine.
    """
    try:
        import pytest_rerunfailures
    except ImportError:
        return
    socket_db = getattr(pytest_rerunfailures, "SocketDB", None)
    if socket_db is None or hasattr(socket_db, "_sock_recv_bytes"):
        return

    def _sock_recv(self: object, conn: socket.socket) -> str:
        delimiter: bytes = getattr(self, "delim")  # noqa: B009
        buffer = b""
        while True:
            byte = conn.recv(1)
            if not byte:
                raise ConnectionError("the StatusDB connection was closed")
            if byte == delimiter:
                return buffer.decode()
            buffer += byte

    socket_db._sock_recv = _sock_recv


_close_rerunfailures_connections_that_ended()


def _import_the_whole_package_once() -> None:
    """Import every module of the package (and the XML modules its reports use) here.

    pytester's in-process runs forget the modules a run imported, so each run imported
    them again, each time compiled anew by pytest's assertion rewriting: about thirty
    modules per run, a third of an in-process run's time.
    """
    import importlib
    import pkgutil
    import xml.dom.minidom  # noqa: F401
    import xml.etree.ElementTree  # noqa: F401

    import pytest_ragas_gate

    for module in pkgutil.walk_packages(pytest_ragas_gate.__path__, "pytest_ragas_gate."):
        if module.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(module.name)
        except ImportError:  # an optional extra that is not installed; its tests skip
            pass


_import_the_whole_package_once()


def _read_package_metadata_once() -> None:
    """Read each installed package's metadata files once per test process, not per run.

    Every in-process run looks through every installed package for plugins, pytest reads
    their file lists to rewrite the plugins' asserts, and the ``plugins:`` header parses
    each plugin's name and version: a fifth of the suite's time went to reading and
    parsing the same unchanged files again.
    """
    from importlib import metadata

    distribution = metadata.PathDistribution
    original_read_text = distribution.read_text
    texts: dict[tuple[str, str], str | None] = {}

    def read_text(self: metadata.PathDistribution, filename: str) -> str | None:
        path = getattr(self, "_path", None)
        if path is None:
            return original_read_text(self, filename)
        key = (str(path), filename)
        if key not in texts:
            texts[key] = original_read_text(self, filename)
        return texts[key]

    def cached_property_of(name: str) -> property:
        original = getattr(distribution, name)
        values: dict[str, Any] = {}

        def value(self: metadata.PathDistribution) -> Any:
            path = getattr(self, "_path", None)
            if path is None:
                return original.fget(self)
            if str(path) not in values:
                values[str(path)] = original.fget(self)
            return values[str(path)]

        return property(value)

    distribution.read_text = read_text  # type: ignore[method-assign]
    for name in ("entry_points", "files", "metadata"):
        setattr(distribution, name, cached_property_of(name))


_read_package_metadata_once()

#: Examples per property test in the default profiles: enough to reach every branch the
#: strategies aim at, few enough that the properties cost seconds, not minutes.
EXAMPLES = 25

settings.register_profile(
    "dev",
    max_examples=EXAMPLES,
    derandomize=True,
    # A loaded 2-core machine runs an example several times slower than an idle one.
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("ci", settings.get_profile("dev"), print_blob=True)
settings.register_profile(
    "explore",
    max_examples=1_000,
    derandomize=False,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _hypothesis_profile() -> str:
    chosen = os.environ.get("HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    return "ci" if os.environ.get("CI", "").lower() not in ("", "0", "false") else "dev"


settings.load_profile(_hypothesis_profile())

_JUDGE_ENVIRONMENT = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "RAG_GATE_JUDGE",
    "RAG_GATE_MODEL",
    "RAG_GATE_CONFIG",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_OUTPUT",
    "GITHUB_BASE_REF",
    "RAG_GATE_SIGNING_KEY",
)


@pytest.fixture(autouse=True)
def _keyless_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may depend on, or leak, a real key or CI setting of the machine it runs on."""
    for name in _JUDGE_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
