"""The documentation: links resolve, the reference page is current, the site builds."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "examples").rglob("README.md")),
    *sorted(DOCS.glob("*.md")),
]

sys.path.insert(0, str(ROOT / "scripts"))
import docs_reference  # noqa: E402

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK  # noqa: E402

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^#{1,6} (.+?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """``text`` without code blocks and inline code, where links are only examples."""
    return _INLINE_CODE.sub("", _FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub and MkDocs (toc) give a heading.

    >>> slug("The `rag-gate` command"), slug("Retriever–generator alignment")
    ('the-rag-gate-command', 'retrievergenerator-alignment')
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.ASCII)
    return text.strip().replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        anchor, suffix = slug(heading), 0
        while (anchor if not suffix else f"{anchor}-{suffix}") in found:
            suffix += 1
        found.add(anchor if not suffix else f"{anchor}-{suffix}")
    return found


def links(path: Path) -> list[str]:
    return _LINK.findall(prose(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_local_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z+.-]*:", target):  # https:, mailto: … are not local
            continue
        file_part, _, anchor = target.partition("#")
        destination = (page.parent / file_part).resolve() if file_part else page
        if not destination.exists():
            broken.append(f"{target}: no file {destination.relative_to(ROOT)}")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading #{anchor} in {destination.name}")
    assert broken == [], f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_link_checker_sees_a_broken_link_and_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n[ok](#title) [bad](#nowhere) [gone](missing.md) `[code](x.md)`\n"
        "```\n[fenced](y.md)\n```\n",
        encoding="utf-8",
    )
    assert links(page) == ["#title", "#nowhere", "missing.md"]
    assert anchors(page) == {"title"}


def test_every_docs_page_is_in_the_site_navigation() -> None:
    navigation = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w-]+\.md)\s*$", navigation, re.M))
    assert listed == {page.name for page in DOCS.glob("*.md")}


def test_the_reference_page_is_generated_from_the_code() -> None:
    current = (DOCS / "reference.md").read_text(encoding="utf-8")
    assert current == docs_reference.render(), (
        "docs/reference.md is stale: run python scripts/docs_reference.py"
    )


def test_the_reference_lists_every_option_key_and_command() -> None:
    page = (DOCS / "reference.md").read_text(encoding="utf-8")
    for option in ("--rag-gate-judge", "--rag-gate-output", "--rag-gate-set", "--rag-gate-shard"):
        assert f"| `{option}` |" in page
    # The old spellings are hidden aliases, listed in the changelog only.
    assert "`--rag-gate-corpus`" not in page
    for key in ("min_cases", "trust.ppi.min_labels", "cache.public_key", "rules.default"):
        assert f"| `{key}` |" in page
    for command in ("import", "label export", "label agreement", "synth", "gate", "render"):
        assert f"### rag-gate {command}\n" in page
    for old in ("regate", "merge", "summary", "html", "history", "agreement"):
        assert f"### rag-gate {old}\n" not in page
    assert "| `--stratify KEY` |" in page


def test_the_readme_stays_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs not installed")
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "golden-sets" / "index.html").exists()


def section(path: Path, title: str) -> str:
    text = path.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match is not None, f"{path.name} has no section {title!r}"
    return match.group(1).strip()


@pytest.mark.parametrize("title", ["Try it", "Run the test suite"])
def test_the_readme_sections_kept_in_the_docs_are_the_same(title: str) -> None:
    readme = section(ROOT / "README.md", title).replace("(noxfile.py)", "")
    docs = section(DOCS / "getting-started.md", title)
    assert readme.replace("[`noxfile.py`]", "`noxfile.py`") == docs


def test_the_readme_golden_line_gates_as_shown(pytester: pytest.Pytester) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```json\n(.*?)```", text, re.S)
    assert match is not None
    pytester.path.joinpath("golden.jsonl").write_text(match.group(1), encoding="utf-8")
    result = pytester.runpytest(
        "--rag-gate", "golden.jsonl", "--rag-gate-judge", "offline", "--rag-gate-cache", "off"
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["RAG gate: PASSED", SMOKE_CHECK])
