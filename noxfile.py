"""The support matrix: every Python and pytest the package claims, and its declared minimums.

``nox -l`` lists the sessions. ``tests`` runs the README's test command once per Python and
pytest (the lowest pytest that ``pyproject.toml`` admits, with the dev plugins at their declared
floors, and the newest release); ``minimums`` installs every direct dependency at exactly its
declared floor, so a floor that no longer works is caught the day it stops working.
``.ci/run`` runs ``minimums`` (the suite itself already ran there on current releases);
``.github/workflows/ci.yml`` runs the whole matrix.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import nox

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 runs nox too
    import tomli as tomllib

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = False
nox.options.error_on_missing_interpreters = False

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
ROOT = Path(__file__).parent
# The dev plugins' floors are what the lowest pytest needs; a newer pytest takes their newest.
LOWEST_PLUGINS = ["pytest-xdist==3.5.0", "pytest-timeout==2.2.0", "pytest-rerunfailures==14.0"]

_FLOOR = re.compile(r"^([A-Za-z0-9_.\[\]-]+?)\s*>=\s*([0-9][^,;\s]*)")


def declared_floors(requirements: list[str]) -> list[str]:
    """``name>=x`` entries as ``name==x`` (markers that do not apply are left to pip).

    >>> declared_floors(["pytest>=7.4", "pydantic>=2.5,<3", "tomli>=2.0; python_version < '3.11'"])
    ['pytest==7.4', 'pydantic==2.5', "tomli==2.0; python_version < '3.11'"]
    """
    pins: list[str] = []
    for requirement in requirements:
        match = _FLOOR.match(requirement)
        if match is None:
            continue
        marker = requirement.partition(";")[2].strip()
        pin = f"{match.group(1)}=={match.group(2)}"
        pins.append(f"{pin}; {marker}" if marker else pin)
    return pins


def _project() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        project: dict[str, Any] = tomllib.load(handle)["project"]
    return project


def _lowest_pytest() -> str:
    for pin in declared_floors(_project()["dependencies"]):
        if pin.startswith("pytest=="):
            return pin
    raise RuntimeError("pyproject.toml declares no floor for pytest")


def _run_suite(session: nox.Session) -> None:
    # The README's test command; exit 5 (nothing collected) fails the session as in .ci/run.
    session.run("pytest", "-n", "2", "-q", *session.posargs, env={"CI": "true"})


@nox.session(python=PYTHONS)
@nox.parametrize("pytest", ["lowest", "latest"])
def tests(session: nox.Session, pytest: str) -> None:
    """The suite on one Python with the lowest or the newest pytest."""
    session.install("-e", ".[dev]")
    if pytest == "lowest":
        session.install(_lowest_pytest(), *LOWEST_PLUGINS)
    else:
        session.install("--upgrade", "pytest", "pytest-xdist", "pytest-timeout")
    session.run("python", "--version")
    session.run("python", "-m", "pytest", "--version")
    _run_suite(session)


@nox.session(python=PYTHONS[0])
def minimums(session: nox.Session) -> None:
    """Every direct dependency at exactly its declared floor, on the lowest Python."""
    project = _project()
    extras = project["optional-dependencies"]
    floors = declared_floors(
        project["dependencies"]
        + extras["openai"]
        + extras["pdf"]
        + extras["rst"]
        + extras["signing"]
    )
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "floors.txt"
        constraints.write_text("\n".join([*floors, *LOWEST_PLUGINS]) + "\n", encoding="utf-8")
        session.install("-c", str(constraints), "-e", ".[dev]")
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    _run_suite(session)
