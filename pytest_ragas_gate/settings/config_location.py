"""Where the gate's config is read from: the rootdir, or where the user stands.

pytest picks its rootdir before it knows plugin options, so in
``pytest --rag-gate --rag-gate-baseline ../main/report.json`` the option's value counts as
a test path and the rootdir moves up to the common ancestor. The project's
``rag_gate.yaml`` beside the invocation directory would then go unread and the run would
gate with the defaults. The config is therefore looked for in the rootdir and, when the
rootdir is not the invocation directory, in the invocation directory too; a config in both
places is ambiguous and stops the run with a usage error that says how to write the option.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..exceptions import ConfigError

__all__ = ["ConfigLocation", "locate_config"]

#: How the message tells the user to keep a path option from moving the rootdir.
EQUALS_FORM = (
    "pytest takes the value of a path option written with a space (--rag-gate-baseline PATH) "
    "for a test path when it picks its rootdir; write it as --rag-gate-baseline=PATH (the same "
    "for --rag-gate-config and the other path options)"
)


@dataclass(frozen=True)
class ConfigLocation:
    """Where to read the settings.

    Attributes:
        directory: The directory whose ``rag_gate.yaml`` and ``pyproject.toml`` are read.
        explicit: The ``--rag-gate-config`` / ``RAG_GATE_CONFIG`` file, as it should be
            passed on (absolute when it was found beside the invocation directory).
    """

    directory: Path
    explicit: str | None = None


def locate_config(rootdir: Path, invocation_dir: Path, explicit: str | None) -> ConfigLocation:
    """The directory (and explicit file) the gate's settings come from.

    Args:
        rootdir: pytest's rootdir.
        invocation_dir: The directory pytest was started in.
        explicit: ``--rag-gate-config`` or ``RAG_GATE_CONFIG``, as given.

    Returns:
        The rootdir when pytest's rootdir is where the user stands or holds the only
        config; the invocation directory when only it holds one.

    Raises:
        ConfigError: When both directories hold a config (or both hold the named file),
            or the named file exists in neither.
    """
    places = [rootdir]
    # A rootdir inside the invocation directory is one the user pointed at (pytest sub/
    # with sub/pytest.ini); any other is one pytest may have moved to, away from the user.
    if not rootdir.is_relative_to(invocation_dir):
        places.append(invocation_dir)
    if explicit:
        return _locate_explicit(places, explicit)
    configured = [place for place in places if _has_config(place)]
    if len(configured) > 1:
        raise ConfigError(
            f"The gate's config is ambiguous: pytest chose the rootdir {rootdir}, above the "
            f"directory you ran it in ({invocation_dir}), and both configure the gate "
            f"({_config_files(rootdir)} and {_config_files(invocation_dir)}). {EQUALS_FORM}, "
            "or name the config with --rag-gate-config=PATH."
        )
    return ConfigLocation(directory=configured[0] if configured else rootdir)


def _locate_explicit(places: list[Path], explicit: str) -> ConfigLocation:
    path = Path(explicit)
    if path.is_absolute():
        return ConfigLocation(directory=places[0], explicit=explicit)
    found = [place for place in places if (place / path).is_file()]
    if not found:
        # load_config says the file does not exist, naming it as given.
        return ConfigLocation(directory=places[0], explicit=explicit)
    if len(found) > 1 and (found[0] / path).resolve() != (found[1] / path).resolve():
        raise ConfigError(
            f"Config file {explicit} is ambiguous: it exists both under pytest's rootdir "
            f"{found[0]} and under the directory you ran pytest in ({found[1]}). "
            f"{EQUALS_FORM}, or give the config's absolute path."
        )
    if found[0] == places[0]:
        return ConfigLocation(directory=places[0], explicit=explicit)
    return ConfigLocation(directory=found[0], explicit=str((found[0] / path).resolve()))


def _has_config(directory: Path) -> bool:
    return bool(_config_files(directory))


def _config_files(directory: Path) -> str:
    """The gate's config files in ``directory``, as a message names them ('' for none)."""
    names = []
    if (directory / "rag_gate.yaml").is_file():
        names.append(str(directory / "rag_gate.yaml"))
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file() and _has_rag_gate_table(pyproject):
        names.append(f"{pyproject} [tool.rag_gate]")
    return " and ".join(names)


def _has_rag_gate_table(pyproject: Path) -> bool:
    # A quick look, not a parse: load_config reads (and checks) the file it settles on.
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.strip().startswith("[tool.rag_gate") for line in text.splitlines())
