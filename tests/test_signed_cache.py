"""Signed judge-cache entries: a pull request cannot edit its way to a passing verdict.

A run with ``RAG_GATE_SIGNING_KEY`` signs every entry it writes; with ``cache_public_key``
configured, every run replays only entries that verify. The key pair comes from
``rag-gate keygen``; the judge is the real Anthropic SDK against the local fake server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakellm import FakeLLM
from gate_runs import (
    GOOD,
    HALLUCINATED,
    GateOutcome,
    assert_no_traceback,
    case_row,
    gate_run,
    use_fake_judge,
    write_golden,
)

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.judges.cache_signing import EntrySigner, EntryVerifier

SIGNING_KEY = "RAG_GATE_SIGNING_KEY"


def keygen(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """The private and public key that ``rag-gate keygen`` prints."""
    capsys.readouterr()
    assert main(["keygen"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith(f"{SIGNING_KEY}=")
    assert out[1].startswith("cache: {public_key: ") and out[1].endswith("}")
    assert yaml.safe_load(out[1])["cache"]["public_key"] == out[1][len("cache: {public_key: ") : -1]
    return out[0].split("=", 1)[1], out[1][len("cache: {public_key: ") : -1]


@pytest.fixture
def keys(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    return keygen(capsys)


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


def write_config(directory: Path, public_key: str | None = None) -> None:
    settings: dict[str, Any] = {"thresholds": {"faithfulness": 0.85}, "max_retries": 1}
    if public_key is not None:
        settings["cache_public_key"] = public_key
    (directory / "rag_gate.yaml").write_text(json.dumps(settings), encoding="utf-8")


#: How every run of this module gates: faithfulness only, no pytest cache.
OPTIONS: dict[str, Any] = {"metrics": "faithfulness", "disable": ("cacheprovider",)}


def record(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    server: FakeLLM,
    signing_key: str | None,
) -> GateOutcome:
    """A run with the judge's key (and the signing key, if given) that records the cache."""
    use_fake_judge(monkeypatch, server)
    if signing_key is None:
        monkeypatch.delenv(SIGNING_KEY, raising=False)
    else:
        monkeypatch.setenv(SIGNING_KEY, signing_key)
    result = gate_run(pytester, judge="anthropic", cache="readwrite", **OPTIONS)
    assert_no_traceback(result)
    return result


def keyless(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork's pull request: no judge key, no signing key, no judge to reach."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", SIGNING_KEY):
        monkeypatch.delenv(name, raising=False)


def entries(directory: Path) -> list[Path]:
    return sorted((directory / ".rag_gate_cache").glob("*/*.json"))


def forge_supported(directory: Path) -> int:
    """Edit every claim verdict of the cache to ``supported``, as a contributor could."""
    edited = 0
    for path in entries(directory):
        entry = json.loads(path.read_text(encoding="utf-8"))
        verdicts = entry["reply"].get("verdicts")
        if entry.get("request_kind") not in ("verify_claims", "review_case") or not verdicts:
            continue
        for verdict in verdicts:
            verdict["verdict"] = "supported"
        path.write_text(json.dumps(entry, indent=1), encoding="utf-8")
        edited += 1
    return edited


def report(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "report.json").read_text(encoding="utf-8"))
    return data


def test_keygen_prints_a_pair_whose_halves_belong_together(
    capsys: pytest.CaptureFixture[str],
) -> None:
    private_key, public_key = keygen(capsys)
    signer = EntrySigner(private_key)
    assert signer.public_key == public_key
    signed = signer.sign({"key": "k", "reply": {"rating": 5}})
    assert EntryVerifier(public_key).problem(signed) is None
    assert EntryVerifier(public_key).problem({**signed, "reply": {"rating": 1}}) == (
        "edited after signing"
    )
    # A second pair is a different one.
    other_private, other_public = keygen(capsys)
    assert (other_private, other_public) != (private_key, public_key)
    assert EntryVerifier(other_public).problem(signed) == "signed by another key"
    assert private_key not in repr(signer)


def test_signed_entries_verify_and_replay_with_no_key_and_no_network(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    keys: tuple[str, str],
) -> None:
    private_key, public_key = keys
    write_golden(pytester.path, [GOOD])
    write_config(pytester.path, public_key)
    with FakeLLM() as server:
        recorded = record(pytester, monkeypatch, server, private_key)
        assert recorded.ret == 0, recorded.stdout.str()
        calls = len(server.judge_requests())
    recorded.stdout.fnmatch_lines(
        [
            "rag-gate: cache replays only entries signed by key * and signs what it writes "
            "with key *",
            f"cache: {calls} entries written and signed",
        ]
    )
    assert all("signature" in json.loads(path.read_text()) for path in entries(pytester.path))

    # The server is gone and no key is set: only a replay can pass.
    keyless(monkeypatch)
    replay = gate_run(pytester, cache="read", **OPTIONS)
    assert_no_traceback(replay)
    assert replay.ret == 0, replay.stdout.str()
    replay.stdout.fnmatch_lines([f"cache: {calls} entries verified against cache.public_key *"])
    replay.stdout.no_fnmatch_line("*failed verification*")
    integrity = report(pytester.path)["run"]["cache_integrity"]
    assert integrity["verified"] == calls and integrity["rejected"] == {}


def test_without_a_public_key_an_edited_cache_is_trusted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, server: FakeLLM
) -> None:
    # Trust on first use, as documented: what the cache says is replayed. This is the
    # forgery the public key exists to stop.
    write_golden(pytester.path, [HALLUCINATED])
    write_config(pytester.path)
    assert record(pytester, monkeypatch, server, None).ret == 1
    assert forge_supported(pytester.path) > 0
    keyless(monkeypatch)
    replay = gate_run(pytester, cache="read", **OPTIONS)
    assert replay.ret == 0
    replay.stdout.fnmatch_lines(["RAG gate: PASSED*"])
    assert report(pytester.path)["run"]["cache_integrity"] is None


FORGERIES = ["edited after signing", "unsigned", "signed by another key"]


def prepare(
    forgery: str,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    server: FakeLLM,
    capsys: pytest.CaptureFixture[str],
    keys: tuple[str, str],
) -> None:
    """The cache of a failing golden set, forged to pass, failing verification one way.

    Its two entries are the claims of the one case and their verdicts: an edit changes
    the verdicts only; an unsigned or foreign-signed cache fails on both.
    """
    private_key, public_key = keys
    write_golden(pytester.path, [HALLUCINATED])
    write_config(pytester.path, public_key)
    if forgery == "edited after signing":
        assert record(pytester, monkeypatch, server, private_key).ret == 1
        forge_supported(pytester.path)
    elif forgery == "unsigned":
        write_config(pytester.path)
        assert record(pytester, monkeypatch, server, None).ret == 1
        forge_supported(pytester.path)
        write_config(pytester.path, public_key)
    else:
        foreign_private, foreign_public = keygen(capsys)
        write_config(pytester.path, foreign_public)
        assert record(pytester, monkeypatch, server, foreign_private).ret == 1
        forge_supported(pytester.path)
        # Re-signed by the forger's own key: valid signatures, the wrong signer.
        signer = EntrySigner(foreign_private)
        for path in entries(pytester.path):
            entry = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps(signer.sign(entry)), encoding="utf-8")
        write_config(pytester.path, public_key)


@pytest.mark.slow
@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forged_entry_is_a_case_error_in_read_mode(
    forgery: str,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    server: FakeLLM,
    capsys: pytest.CaptureFixture[str],
    keys: tuple[str, str],
) -> None:
    prepare(forgery, pytester, monkeypatch, server, capsys, keys)
    asked = len(server.judge_requests())
    keyless(monkeypatch)
    # The first entry that fails stops the case: the verdicts when only they were edited,
    # the claims otherwise.
    rejected = 1

    replay = gate_run(pytester, "-rA", cache="read", **OPTIONS)

    assert_no_traceback(replay)
    assert replay.ret == 1, replay.stdout.str()
    assert len(server.judge_requests()) == asked
    replay.stdout.fnmatch_lines(
        [
            f"*cache entry for * failed verification: {forgery}*",
            f"{rejected} cache entry failed verification: {forgery} — not replayed; in read*",
        ]
    )
    replay.stdout.no_fnmatch_line("RAG gate: PASSED*")
    replay.stdout.no_fnmatch_line("*Safe to deploy*")
    saved = report(pytester.path)
    assert saved["verdict"] != "passed"
    assert saved["run"]["cache_integrity"]["rejected"] == {forgery: rejected}
    (case,) = saved["cases"]
    assert f"failed verification: {forgery}" in case["errors"]["faithfulness"]


@pytest.mark.slow
@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forged_entry_is_asked_again_and_re_signed_in_readwrite(
    forgery: str,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    server: FakeLLM,
    capsys: pytest.CaptureFixture[str],
    keys: tuple[str, str],
) -> None:
    prepare(forgery, pytester, monkeypatch, server, capsys, keys)
    asked = len(server.judge_requests())
    rejected = 1 if forgery == "edited after signing" else 2

    again = record(pytester, monkeypatch, server, keys[0])

    # The judge's own verdicts, not the forged ones: the hallucinated case fails again.
    assert again.ret == 1, again.stdout.str()
    assert len(server.judge_requests()) - asked == rejected
    again.stdout.fnmatch_lines([f"{rejected} * failed verification: {forgery} — *asked again"])
    verifier = EntryVerifier(keys[1])
    for path in entries(pytester.path):
        assert verifier.problem(json.loads(path.read_text(encoding="utf-8"))) is None


def test_a_signing_key_that_is_not_the_configured_one_stops_the_run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    server: FakeLLM,
    capsys: pytest.CaptureFixture[str],
    keys: tuple[str, str],
) -> None:
    other_private, _ = keygen(capsys)
    write_golden(pytester.path, [GOOD])
    write_config(pytester.path, keys[1])
    result = record(pytester, monkeypatch, server, other_private)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "RAG_GATE_SIGNING_KEY does not belong to cache.public_key" in output
    assert other_private not in output
    assert server.judge_requests() == []


@pytest.mark.parametrize("value", ["not-a-key", 42])
def test_a_malformed_public_key_is_a_config_error(
    value: object, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_golden(pytester.path, [GOOD])
    (pytester.path / "rag_gate.yaml").write_text(
        f"cache_public_key: {json.dumps(value)}\n", encoding="utf-8"
    )
    keyless(monkeypatch)
    result = gate_run(pytester, judge="offline", **OPTIONS)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*rag_gate.yaml*cache.public_key*rag-gate keygen*"])


def test_a_malformed_signing_key_is_a_usage_error_that_does_not_quote_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, server: FakeLLM
) -> None:
    write_golden(pytester.path, [GOOD])
    write_config(pytester.path)
    result = record(pytester, monkeypatch, server, "c2VjcmV0LXRoYXQtaXMtdG9vLXNob3J0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "RAG_GATE_SIGNING_KEY is not an Ed25519 private key" in output
    assert "c2VjcmV0LXRoYXQtaXMtdG9vLXNob3J0" not in output


def test_the_signing_key_is_in_no_file_the_run_writes(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    server: FakeLLM,
    keys: tuple[str, str],
) -> None:
    private_key, public_key = keys
    write_golden(pytester.path, [GOOD, HALLUCINATED])
    write_config(pytester.path, public_key)
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(pytester.path / "github_output"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = record(
        pytester, monkeypatch, server, private_key
    )  # writes cache, report, step summary
    again = gate_run(
        pytester, "-rA", "-vv", judge="anthropic", junit="junit.xml", html="report.html", **OPTIONS
    )
    assert summary.is_file() and entries(pytester.path)
    markdown = summary.read_text(encoding="utf-8")
    assert f"> cache: {len(entries(pytester.path))} entries written and signed" in markdown
    assert "entries verified against cache.public\\_key" in markdown
    written = [path for path in pytester.path.rglob("*") if path.is_file()]
    for path in written:
        assert private_key not in path.read_bytes().decode("utf-8", "replace"), path
    for run in (result, again):
        assert private_key not in run.stdout.str() + run.stderr.str()


@pytest.mark.slow
def test_xdist_workers_sign_and_verify(
    pytester: pytest.Pytester, server: FakeLLM, keys: tuple[str, str]
) -> None:
    private_key, public_key = keys
    write_golden(pytester.path, [case_row(index) for index in range(6)])
    write_config(pytester.path, public_key)
    base = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    base.pop(SIGNING_KEY, None)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-n",
        "2",
        "--rag-gate",
        "--rag-gate-metrics=faithfulness",
        "--rag-gate-report=report.json",
        "-p",
        "no:cacheprovider",
    ]

    def run(env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *extra],
            cwd=pytester.path,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )

    recording = run(
        {
            **base,
            "ANTHROPIC_API_KEY": "test-key-not-real",
            "ANTHROPIC_BASE_URL": server.url,
            SIGNING_KEY: private_key,
        },
        "--rag-gate-judge=anthropic",
    )
    assert recording.returncode == 0, recording.stdout + recording.stderr
    written = entries(pytester.path)
    assert len(written) == len(server.judge_requests()) > 0
    assert f"cache: {len(written)} entries written and signed" in recording.stdout
    integrity = report(pytester.path)["run"]["cache_integrity"]
    assert integrity["signed"] == len(written)

    replay = run(base, "--rag-gate-cache=read")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert f"cache: {len(written)} entries verified against" in replay.stdout

    forge_supported(pytester.path)
    path = written[0]
    path.write_text(path.read_text(encoding="utf-8").replace("Apple", "Pear"), encoding="utf-8")
    forged = run(base, "--rag-gate-cache=read")
    assert forged.returncode == 1
    assert "failed verification: edited after signing" in forged.stdout
    for output in (recording, replay, forged):
        assert private_key not in output.stdout + output.stderr


def test_keygen_without_cryptography_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # As if the package were not installed: its import fails.
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric", None)
    capsys.readouterr()
    assert main(["keygen"]) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "pip install 'pytest-ragas-gate[signing]'" in captured.err
    assert "Traceback" not in captured.err
