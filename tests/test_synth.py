"""rag-gate synth with the offline writer: documents to golden cases the gate runs as they are."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from gate_runs import assert_no_traceback, read_report

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.golden.loading import load_golden_file

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "synth" / "corpus"
CJK = re.compile(r"[\u4e00-\u9fff]")


def synth(
    tmp_path: Path, *extra: str, out: str = "golden_synth.jsonl", paths: tuple[str, ...] = ()
) -> tuple[int, list[dict[str, Any]]]:
    """Run ``rag-gate synth`` offline on the example corpus; the exit status and the rows."""
    output = tmp_path / out
    status = main(
        ["synth", *(paths or (str(CORPUS),)), "-o", str(output), "--judge", "offline", *extra]
    )
    rows = (
        [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
        if output.exists()
        else []
    )
    return status, rows


def kind_of(row: dict[str, Any]) -> str:
    return str(row["tags"][1])


def test_cases_load_in_the_gate_with_ids_kinds_and_pending_review(tmp_path: Path) -> None:
    status, rows = synth(
        tmp_path,
        "--n",
        "14",
        "--mix",
        "single=0.5,multi=0.15,reasoning=0.2,unanswerable=0.15",
        "--chunks-out",
        str(tmp_path / "chunks.jsonl"),
    )

    assert status == 0
    assert len(rows) == 14
    loaded = load_golden_file(tmp_path / "golden_synth.jsonl")
    assert loaded.problems == []
    assert len(loaded.cases) == 14
    chunks = {
        row["id"]: row["text"]
        for row in map(json.loads, (tmp_path / "chunks.jsonl").read_text().splitlines())
    }
    for row in rows:
        assert row["review"] == "pending"
        assert row["tags"][0] == "synth" and kind_of(row) in (
            "single",
            "multi",
            "reasoning",
            "unanswerable",
        )
        # Every relevant id names a real chunk, and the reference contexts are its text.
        assert [chunks[chunk_id] for chunk_id in row["relevant_context_ids"]] == row[
            "reference_contexts"
        ]
        # A reasoning question compares two facts of one document: one chunk or two.
        expected = {"single": {1}, "reasoning": {1, 2}, "multi": {2}, "unanswerable": {0}}
        assert len(row["relevant_context_ids"]) in expected[kind_of(row)]
        if kind_of(row) == "reasoning":
            assert len({chunk_id.split("#")[0] for chunk_id in row["relevant_context_ids"]}) == 1
    assert len({row["id"] for row in rows}) == len(rows)


def test_kinds_follow_the_mix_within_ten_percent(tmp_path: Path) -> None:
    mix = {"single": 0.4, "multi": 0.2, "reasoning": 0.2, "unanswerable": 0.2}
    status, rows = synth(
        tmp_path, "--n", "30", "--mix", ",".join(f"{k}={v}" for k, v in mix.items())
    )

    assert status == 0
    for kind, share in mix.items():
        found = sum(1 for row in rows if kind_of(row) == kind) / len(rows)
        assert abs(found - share) <= 0.10, (kind, found)


@pytest.mark.slow
def test_ids_are_stable_across_runs_and_working_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, first = synth(tmp_path, "--n", "20", out="first.jsonl")
    monkeypatch.chdir(tmp_path)
    _, second = synth(tmp_path, "--n", "20", out="second.jsonl")

    assert first == second
    assert {row["id"] for row in first} == {row["id"] for row in second}


@pytest.mark.slow
def test_an_edited_paragraph_changes_only_its_chunks_id(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "# Plans\n\nThe Team plan has 2 TB of storage per user.\n\n# Refunds\n\n{}\n"
    (docs / "a.md").write_text(text.format("Refunds take 14 days."), encoding="utf-8")
    synth(
        tmp_path,
        "--chunk-tokens",
        "10",
        "--chunks-out",
        str(tmp_path / "c1.jsonl"),
        paths=(str(docs),),
    )
    (docs / "a.md").write_text(text.format("Refunds take 30 days."), encoding="utf-8")
    synth(
        tmp_path,
        "--chunk-tokens",
        "10",
        "--chunks-out",
        str(tmp_path / "c2.jsonl"),
        paths=(str(docs),),
        out="second.jsonl",
    )

    ids = [
        [json.loads(line)["id"] for line in (tmp_path / name).read_text().splitlines()]
        for name in ("c1.jsonl", "c2.jsonl")
    ]
    assert ids[0][0] == ids[1][0] and ids[0][0].startswith("a.md#0-")
    assert ids[0][1] != ids[1][1]


def test_chinese_documents_give_chinese_questions(tmp_path: Path) -> None:
    _, rows = synth(tmp_path, "--n", "30")

    chinese = [row for row in rows if any(tag.startswith("zh/") for tag in row["tags"])]
    assert chinese
    for row in chinese:
        assert CJK.search(row["question"]) and CJK.search(row["reference"]), row


def test_coverage_is_balanced_over_documents(tmp_path: Path) -> None:
    _, rows = synth(tmp_path, "--n", "24")

    documents = {tag for row in rows for tag in row["tags"][2:]}
    assert len(documents) >= 6  # of the 7 documents of the corpus


def test_html_text_leaves_out_scripts_and_navigation(tmp_path: Path) -> None:
    synth(tmp_path, "--n", "4", "--chunks-out", str(tmp_path / "chunks.jsonl"))

    texts = [
        json.loads(line)["text"]
        for line in (tmp_path / "chunks.jsonl").read_text().splitlines()
        if json.loads(line)["document"] == "security.html"
    ]
    joined = "\n".join(texts)
    assert "AES-256" in joined and "Frankfurt" in joined
    assert "console.log" not in joined and "font-family" not in joined and "Home" not in joined


def test_jsonl_documents_and_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        json.dumps(
            {
                "id": "kb-1",
                "title": "Uploads",
                "text": "Files of up to 50 GB can be "
                "uploaded through the desktop app. The web uploader is limited to 5 GB.",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    status, rows = synth(tmp_path, "--n", "2", "--mix", "single=1", paths=(str(docs),))

    assert status == 0
    assert rows and all(
        row["relevant_context_ids"][0].startswith("docs.jsonl#kb-1#") for row in rows
    )
    out = capsys.readouterr().out
    assert "2 cases written to" in out and "calls and" not in out.split("\n")[0]
    assert "0 calls" in out and "rag-gate synth review" in out


def _pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` in Helvetica, written by hand."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    body = b"%PDF-1.4\n"
    offsets = []
    for number, content in enumerate(objects, 1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + content + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    body += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    body += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return body


def test_pdf_documents_are_read_through_pypdf(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "limits.pdf").write_bytes(
        _pdf("Files of up to 50 GB can be uploaded through the desktop app.")
    )
    status, rows = synth(tmp_path, "--n", "1", "--mix", "single=1", paths=(str(docs),))

    assert status == 0
    assert rows[0]["relevant_context_ids"][0].startswith("limits.pdf#0-")
    assert "50 GB" in rows[0]["reference"]


@pytest.mark.parametrize(
    ("paths", "options", "message"),
    [
        (["missing-folder"], [], "missing-folder: no such file or folder"),
        ([str(CORPUS)], ["--mix", "single=0.5,tricky=0.5"], "--mix: 'tricky=0.5' is not KIND="),
        ([str(CORPUS)], ["--n", "0"], "argument --n: expected a whole number >= 1, got '0'"),
    ],
)
def test_bad_command_lines_exit_4_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    paths: list[str],
    options: list[str],
    message: str,
) -> None:
    arguments = ["synth", *paths, "-o", str(tmp_path / "o.jsonl"), "--judge", "offline"]
    try:
        status = main([*arguments, *options])
    except SystemExit as stop:  # argparse's own errors
        status = int(stop.code or 0)

    assert status == 4
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_bad_jsonl_document_names_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "kb.jsonl"
    docs.write_text('{"id": "a", "text": "Fine text here."}\n{"id": "b"}\n', encoding="utf-8")

    status, _ = synth(tmp_path, paths=(str(docs),))

    assert status == 4
    assert f"{docs}:2: field 'text': expected a non-empty string" in capsys.readouterr().err


def _decide(path: Path, decisions: dict[int, tuple[str, str | None]]) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for index, (review, question) in decisions.items():
        rows[index]["review"] = review
        if question:
            rows[index]["question"] = question
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return rows


def test_a_rerun_keeps_reviewed_cases_replaces_rejected_ones_and_fills_a_larger_n(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    mix = ("--mix", "single=0.8,unanswerable=0.2")
    synth(tmp_path, "--n", "10", *mix, paths=(str(docs),))
    path = tmp_path / "golden_synth.jsonl"
    before = _decide(path, {0: ("accepted", "An edited question?"), 1: ("rejected", None)})

    status, again = synth(tmp_path, "--n", "10", *mix, paths=(str(docs),))

    assert status == 0
    by_id = {row["id"]: row for row in again}
    assert by_id[before[0]["id"]]["question"] == "An edited question?"
    assert by_id[before[0]["id"]]["review"] == "accepted"
    assert by_id[before[1]["id"]]["review"] == "rejected"
    # The rejected case is replaced: ten cases besides it, none asking it again.
    assert sum(1 for row in again if row["review"] != "rejected") == 10
    assert [row["question"] for row in again].count(before[1]["question"]) == 1
    assert "kept 2 reviewed case(s) of the previous file (1 accepted, 1 rejected)" in (
        capsys.readouterr().out
    )

    status, larger = synth(tmp_path, "--n", "12", *mix, paths=(str(docs),))

    assert status == 0
    assert sum(1 for row in larger if row["review"] != "rejected") == 12
    assert by_id[before[0]["id"]] in larger


def test_an_edited_document_keeps_the_decisions_on_its_unchanged_chunks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    options = ("--mix", "single=1", "--chunk-tokens", "60")
    synth(tmp_path, "--n", "12", *options, paths=(str(docs),))
    path = tmp_path / "golden_synth.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    uploads = [index for index, row in enumerate(rows) if "uploads.md" in row["tags"]]
    others = [index for index, row in enumerate(rows) if "uploads.md" not in row["tags"]]
    _decide(path, {index: ("accepted", None) for index in uploads + others[:2]})
    # One word of the uploads page changes: only its own chunk is new.
    page = docs / "uploads.md"
    page.write_text(page.read_text("utf-8").replace("discarded", "deleted"), "utf-8")

    status, again = synth(tmp_path, "--n", "12", *options, paths=(str(docs),))

    assert status == 0
    states = {row["id"]: row["review"] for row in again}
    assert all(states[rows[index]["id"]] == "accepted" for index in others[:2])
    stale = [rows[i]["id"] for i in uploads if states.get(rows[i]["id"]) == "pending"]
    kept = [rows[i]["id"] for i in uploads if states.get(rows[i]["id"]) == "accepted"]
    assert len(stale) + len(kept) == len(uploads)
    out = capsys.readouterr().out
    if stale:
        assert f"{len(stale)} reviewed case(s) are pending again: their chunks changed" in out


def test_reviewed_cases_on_a_removed_document_are_never_dropped_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    synth(tmp_path, "--n", "10", "--mix", "single=1", paths=(str(docs),))
    path = tmp_path / "golden_synth.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    gone = next(index for index, row in enumerate(rows) if "sharing.md" in row["tags"])
    _decide(path, {gone: ("accepted", None)})
    (docs / "sharing.md").unlink()

    status, _ = synth(tmp_path, "--n", "10", "--mix", "single=1", paths=(str(docs),))

    assert status == 4
    err = capsys.readouterr().err
    assert (
        f"1 reviewed case(s) whose chunks are gone from the documents ({rows[gone]['id']})" in err
    )
    assert json.loads(path.read_text().splitlines()[gone])["review"] == "accepted"

    status, again = synth(tmp_path, "--n", "10", "--mix", "single=1", "--force", paths=(str(docs),))
    assert status == 0 and rows[gone]["id"] not in {row["id"] for row in again}


# --- in the gate ------------------------------------------------------------------------


TARGET = '''
def answer(question, case):
    """A perfect retriever: exactly the relevant chunks, in order."""
    ids = case.relevant_context_ids or []
    texts = case.metadata.get("reference_contexts") or []
    contexts = [{"id": i, "text": t} for i, t in zip(ids, texts)]
    return {"answer": case.reference, "contexts": contexts}
'''


def test_a_live_run_returning_exactly_the_relevant_chunks_scores_id_recall_1(
    pytester: pytest.Pytester,
) -> None:
    synth(pytester.path, "--n", "20")
    written = len((pytester.path / "golden_synth.jsonl").read_text().splitlines())
    assert written >= 18  # the summary names any kind the corpus could not fill honestly
    pytester.makepyfile(perfect_rag=TARGET)

    result = pytester.runpytest(
        "--rag-gate",
        "golden_synth.jsonl",
        "--rag-gate-judge",
        "offline",
        "--rag-gate-target",
        "perfect_rag:answer",
        "--rag-gate-metrics",
        "id_recall,id_precision,mrr",
        "--rag-gate-report",
        "report.json",
        "-p",
        "no:randomly",
    )

    assert_no_traceback(result)
    # Only the pending notice is ours; pytester may add its own warnings in-process.
    result.assert_outcomes(passed=written, warnings=result.parseoutcomes().get("warnings", 0))
    pending = f"{written} of {written} golden case(s) are review: pending"
    assert result.stdout.str().count(pending) == 1
    metrics = read_report(pytester.path / "report.json")["metrics"]
    for name in ("id_recall", "id_precision", "mrr"):
        assert metrics[name]["mean"] == 1.0, name
        assert metrics[name]["errors"] == 0
    assert metrics["id_recall"]["not_applicable"] == sum(
        1
        for line in (pytester.path / "golden_synth.jsonl").read_text().splitlines()
        if json.loads(line)["tags"][1] == "unanswerable"
    )


def test_the_gate_skips_rejected_cases_and_warns_once_about_pending_ones(
    pytester: pytest.Pytester,
) -> None:
    base = {"reference": "r", "answer": "a", "contexts": ["c"]}
    rows = [
        {"id": "ok", "question": "Accepted?", "review": "accepted", **base},
        {"id": "no", "question": "Rejected?", "review": "rejected", **base},
        {"id": "p1", "question": "Pending one?", "review": "pending", **base},
        {"id": "p2", "question": "Pending two?", "review": "Pending", **base},
    ]
    pytester.makefile(".jsonl", golden="\n".join(json.dumps(row) for row in rows))

    result = pytester.runpytest(
        "--rag-gate", "--rag-gate-judge", "offline", "-v", "-p", "no:randomly"
    )

    assert_no_traceback(result)
    text = result.stdout.str()
    assert "golden.jsonl::no" not in text and "golden.jsonl::ok" in text
    assert text.count("2 of 3 golden case(s) are review: pending") == 1
    assert "gated 3 of 3 collected golden case(s)" in text


@pytest.mark.slow
def test_the_pending_notice_is_printed_not_raised_under_warnings_as_errors(
    pytester: pytest.Pytester,
) -> None:
    row = {"id": "p", "question": "Pending?", "review": "pending", "answer": "a", "contexts": ["c"]}
    pytester.makefile(".jsonl", golden=json.dumps(row))

    # In a subprocess: in-process, pytester's own already-imported-module warning would be
    # an error too under -W error.
    result = pytester.runpytest_subprocess(
        "--rag-gate", "--rag-gate-judge", "offline", "-W", "error"
    )

    assert_no_traceback(result)
    assert result.ret != pytest.ExitCode.INTERNAL_ERROR
    assert "1 of 1 golden case(s) are review: pending" in result.stdout.str()
    result.stdout.fnmatch_lines(["RAG gate: *"])


def test_an_unknown_review_state_is_a_case_error_naming_the_field(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".jsonl", golden=json.dumps({"id": "x", "question": "Q?", "review": "maybe"}))

    result = pytester.runpytest("--rag-gate", "--rag-gate-judge", "offline")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*golden.jsonl:1: field 'review': expected one of pending, accepted, rejected, got*"]
    )


@pytest.mark.slow
def test_the_pending_warning_appears_once_under_xdist(pytester: pytest.Pytester) -> None:
    rows = [{"id": f"p{i}", "question": f"Pending {i}?", "review": "pending"} for i in range(6)]
    pytester.makefile(".jsonl", golden="\n".join(json.dumps(row) for row in rows))

    result = pytester.runpytest_subprocess("--rag-gate", "--rag-gate-judge", "offline", "-n", "2")

    assert result.stdout.str().count("6 of 6 golden case(s) are review: pending") == 1


@pytest.mark.slow
def test_the_example_commands_take_the_corpus_to_a_passing_live_gate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = CORPUS.parents[1]
    shutil.copytree(examples / "synth", pytester.path / "examples" / "synth")
    shutil.copytree(examples / "live", pytester.path / "examples" / "live")
    monkeypatch.chdir(pytester.path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)

    status = main(
        [
            "synth",
            "examples/synth/corpus",
            "-o",
            "examples/synth/cases.jsonl",
            "--n",
            "24",
            "--chunks-out",
            "examples/synth/chunks.jsonl",
        ]
    )
    result = pytester.runpytest_subprocess("--rag-gate", "examples/synth/cases.jsonl")

    assert status == 0
    assert_no_traceback(result)
    # One multi question short of the 24 asked: the corpus has four pairs of chunks that
    # describe one named thing (examples/synth/README.md says so).
    result.assert_outcomes(passed=23, warnings=1)
    result.stdout.fnmatch_lines(["*id_recall*PASS*", "RAG gate: PASSED"])
