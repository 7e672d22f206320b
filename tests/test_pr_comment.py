"""The sticky pull-request comment, against a fake GitHub REST API on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from gate_runs import GOOD, HALLUCINATED, case, cases, write

from pytest_ragas_gate import cli
from pytest_ragas_gate.reports.pr_comment import MARKER, main

TOKEN = "ghs_fake_token_never_printed"
REPOSITORY = "octo/rag"
PULL_REQUEST = 7


class FakeGitHub:
    """Issue comments of one repository, as the REST API serves them, plus a request log."""

    def __init__(self) -> None:
        self.comments: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str]] = []
        self.authorizations: set[str] = set()
        self.refuse: dict[str, int] = {}
        # (method, status, headers) answered once each, in order, before serving normally.
        self.fail_next: list[tuple[str, int, dict[str, str]]] = []
        # (method, status) served normally, then answered with that status instead: the
        # request took effect but the client sees a failure (a 502 from a proxy, say).
        self.land_then_fail: list[tuple[str, int]] = []
        self._next_id = 1000
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def add(self, issue: int, body: str, author: str = "someone") -> dict[str, Any]:
        comment = {
            "id": self._next_id,
            "issue": issue,
            "body": body,
            "user": {"login": author},
            "html_url": f"https://github.example/{REPOSITORY}/pull/{issue}#issuecomment-{self._next_id}",
        }
        self._next_id += 1
        self.comments.append(comment)
        return comment

    def ours(self) -> list[dict[str, Any]]:
        return [comment for comment in self.comments if MARKER in comment["body"]]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        github = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _reply(
                self, status: int, payload: Any, headers: dict[str, str] | None = None
            ) -> None:
                if getattr(self, "lands_as", None) is not None:
                    status, payload, headers = self.lands_as, {"message": "Bad Gateway"}, {}
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str) -> None:
                url = urlsplit(self.path)
                github.requests.append((method, url.path))
                github.authorizations.add(self.headers.get("Authorization", ""))
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                failing = next((f for f in github.fail_next if f[0] == method), None)
                if failing is not None:
                    github.fail_next.remove(failing)
                    self._reply(failing[1], {"message": "Server Error"}, failing[2])
                    return
                if method in github.refuse:
                    self._reply(
                        github.refuse[method],
                        {"message": "Resource not accessible by integration"},
                    )
                    return
                landing = next((f for f in github.land_then_fail if f[0] == method), None)
                self.lands_as: int | None = None
                if landing is not None:
                    github.land_then_fail.remove(landing)
                    self.lands_as = landing[1]
                listing = re.fullmatch(rf"/repos/{REPOSITORY}/issues/(\d+)/comments", url.path)
                single = re.fullmatch(rf"/repos/{REPOSITORY}/issues/comments/(\d+)", url.path)
                if listing and method == "GET":
                    query = parse_qs(url.query)
                    per_page = int(query.get("per_page", ["30"])[0])
                    page = int(query.get("page", ["1"])[0])
                    on_issue = [c for c in github.comments if c["issue"] == int(listing[1])]
                    self._reply(200, on_issue[(page - 1) * per_page : page * per_page])
                elif listing and method == "POST":
                    self._reply(201, github.add(int(listing[1]), body["body"], "github-actions"))
                elif single and method == "PATCH":
                    comment = next(c for c in github.comments if c["id"] == int(single[1]))
                    comment["body"] = body["body"]
                    self._reply(200, comment)
                elif single and method == "DELETE":
                    github.comments = [c for c in github.comments if c["id"] != int(single[1])]
                    self._reply(204, None)
                else:
                    self._reply(404, {"message": "Not Found"})

            def do_GET(self) -> None:
                self._handle("GET")

            def do_POST(self) -> None:
                self._handle("POST")

            def do_PATCH(self) -> None:
                self._handle("PATCH")

            def do_DELETE(self) -> None:
                self._handle("DELETE")

        return Handler


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture
def environ(github: FakeGitHub, tmp_path: Path) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PULL_REQUEST}}), encoding="utf-8")
    return {
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "4242",
    }


@pytest.fixture
def reports(tmp_path: Path) -> dict[str, Path]:
    """A baseline, a passing run like it, and a run where case c1 regressed."""
    base = write(tmp_path / "base.json", cases([0.9, 0.95, 0.9]))
    same = write(tmp_path / "same.json", cases([0.9, 0.95, 0.9]))
    worse = write(tmp_path / "worse-raw.json", cases([0.9, 0.2, 0.9]))
    compared = tmp_path / "worse.json"
    cli.main(["gate", str(worse), "--baseline", str(base), "-o", str(compared)])
    return {"base": base, "same": same, "worse": compared}


def test_the_first_run_creates_the_comment_and_the_next_updates_it(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([str(reports["same"])], environ) == 0
    assert "rag-gate comment: created https://github.example/" in capsys.readouterr().out
    [first] = github.ours()
    assert "## ✅ RAG gate: PASSED" in first["body"]

    status = main([str(reports["worse"]), "--baseline", str(reports["base"])], environ)

    assert status == 0
    assert "rag-gate comment: updated" in capsys.readouterr().out
    assert github.ours() == [first]  # the same comment, edited in place
    assert "## ❌ RAG gate: FAILED" in first["body"]
    assert [method for method, _ in github.requests] == ["GET", "POST", "GET", "PATCH"]
    assert github.authorizations == {f"Bearer {TOKEN}"}


def test_the_comment_holds_verdict_metrics_deltas_regressions_and_the_run(
    github: FakeGitHub, environ: dict[str, str], reports: dict[str, Path]
) -> None:
    main([str(reports["worse"]), "--baseline", str(reports["base"])], environ)

    body = github.ours()[0]["body"]
    assert body.startswith(MARKER + "\n## ❌ RAG gate: FAILED\n")
    assert "**Block deployment" in body
    # Three paired cases are too few for the paired bootstrap to call the drop real.
    assert "| `faithfulness` | 0.67 | 0.20–0.90 | ≥ 0.85 | -0.25 | ❌ fail |" in body
    assert "### Worst regressed cases" in body
    assert "| `golden.jsonl::c1` | `faithfulness` | 0.95 | 0.20 | -0.75 |" in body
    assert "### Failing cases" in body and "faithfulness 0.20 &lt; 0.85" in body
    run = "https://github.example/octo/rag/actions/runs/4242"
    assert f"[workflow run]({run})" in body and f"[artifacts]({run}#artifacts)" in body


def test_our_comment_is_found_among_many_on_a_later_page(
    github: FakeGitHub, environ: dict[str, str], reports: dict[str, Path]
) -> None:
    for index in range(150):
        github.add(PULL_REQUEST, f"comment {index}")
    ours = github.add(PULL_REQUEST, MARKER + "\nan old verdict")
    github.add(PULL_REQUEST + 1, MARKER + "\nanother pull request's verdict")

    assert main([str(reports["same"])], environ) == 0

    assert "RAG gate: PASSED" in ours["body"]
    assert len(github.comments) == 152
    assert ("PATCH", f"/repos/{REPOSITORY}/issues/comments/{ours['id']}") in github.requests


def test_a_read_only_token_is_a_warning_and_a_passing_step(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    github.refuse["POST"] = 403

    status = main([str(reports["same"])], environ)

    output = capsys.readouterr().out
    assert status == 0
    assert output.startswith(
        "::warning title=RAG gate comment::could not comment on pull request #7: "
        f"POST /repos/{REPOSITORY}/issues/7/comments answered HTTP 403: Resource not "
        "accessible by integration (the token may not write to pull requests"
    )
    assert "pull-requests: write" in output
    assert TOKEN not in output


def test_an_unreachable_api_is_retried_then_an_error_in_the_log_and_the_summary(
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    environ["GITHUB_API_URL"] = "http://127.0.0.1:9"
    environ["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
    waits: list[float] = []

    assert main([str(reports["same"])], environ, sleep=waits.append) == 0

    output = capsys.readouterr().out
    assert output.startswith("::error title=RAG gate comment::could not comment on pull request #7")
    assert "(tried 4 times)" in output
    assert waits == [1.0, 2.0, 4.0]
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "❌ The pull-request comment was not updated: could not comment" in summary


@pytest.mark.parametrize(
    ("change", "arguments", "message"),
    [
        ({"GITHUB_TOKEN": ""}, [], "GITHUB_TOKEN is not set; pass it to the step through env:"),
        ({"GITHUB_EVENT_PATH": ""}, ["--comment", "true"], "the event names no pull request"),
        ({}, ["--report-missing"], "no comment: Cannot read the report"),
    ],
)
def test_what_stops_a_comment_is_said_in_a_warning(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    change: dict[str, str],
    arguments: list[str],
    message: str,
) -> None:
    environ.update(change)
    report = str(reports["same"])
    if arguments == ["--report-missing"]:
        report, arguments = str(reports["same"].parent / "missing.json"), []

    assert main([report, *arguments], environ) == 0

    assert message in capsys.readouterr().out
    assert github.requests == []


def test_only_pull_request_events_comment_unless_asked(
    github: FakeGitHub, environ: dict[str, str], reports: dict[str, Path]
) -> None:
    environ["GITHUB_EVENT_NAME"] = "push"
    assert main([str(reports["same"])], environ) == 0
    assert main([str(reports["same"]), "--comment", "false"], environ) == 0
    assert github.requests == []

    assert main([str(reports["same"]), "--comment", "true", "--pr", "9"], environ) == 0

    assert [comment["issue"] for comment in github.ours()] == [9]


def test_case_text_cannot_break_out_of_the_comment(
    github: FakeGitHub, environ: dict[str, str], tmp_path: Path
) -> None:
    hostile = "<img src=x onerror=alert(1)>|@octo/team `x`"
    report = write(tmp_path / "r.json", [case(hostile, 0.1), case("fine", 0.95, line=2)])

    main([str(report)], environ)

    body = github.ours()[0]["body"]
    row = next(line for line in body.splitlines() if "img" in line)
    # One code span per cell: GitHub shows it as text, and the pipe stays in the cell.
    assert row.startswith("| `` golden.jsonl::<img src=x onerror=alert(1)>\\|@octo/team `x` `` |")
    assert row.count(" | ") == 1


def test_a_bad_command_line_exits_4(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--comment", "sometimes", "r.json"], {})
    assert stopped.value.code == 4
    assert "invalid choice: 'sometimes'" in capsys.readouterr().err


# --- the action's steps, run as a runner runs them --------------------------------------------


@pytest.fixture
def action_run(tmp_path: Path) -> Any:
    from test_action import ROOT, Runner, step

    workspace = tmp_path / "workspace"
    (workspace / "gate").mkdir(parents=True)
    (workspace / "gate" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    rows = [GOOD, HALLUCINATED]
    (workspace / "gate" / "golden.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    runner = Runner(workspace)
    gate = runner.run_gate(
        paths="golden.jsonl", judge="offline", cache="off", working_directory="gate"
    )
    assert gate.returncode == 1, gate.stdout + gate.stderr
    outputs = dict(runner.outputs)

    def comment(environ: dict[str, str], **inputs: str) -> Any:
        context = {
            "github.action_path": str(ROOT),
            "inputs.comment": inputs.get("comment", "auto"),
            "inputs.baseline": inputs.get("baseline", ""),
            "inputs.working-directory": "gate",
            "inputs.github-token": TOKEN,
            "steps.gate.outputs.report-path": outputs["report-path"],
        }
        environment = {key: value for key, value in environ.items() if key != "GITHUB_TOKEN"}
        return runner.run(step("Comment on the pull request"), context, environment)

    return outputs, comment


@pytest.mark.slow
def test_the_action_writes_the_html_report_and_comments(
    github: FakeGitHub, environ: dict[str, str], action_run: Any, tmp_path: Path
) -> None:
    outputs, comment = action_run
    assert outputs["html-path"] == "gate/rag-gate-report.html"
    assert (tmp_path / "workspace" / outputs["html-path"]).is_file()

    result = comment(environ)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "## ❌ RAG gate: FAILED" in github.ours()[0]["body"]
    assert github.authorizations == {f"Bearer {TOKEN}"}


@pytest.mark.slow
def test_the_action_only_warns_when_the_token_is_read_only(
    github: FakeGitHub, environ: dict[str, str], action_run: Any
) -> None:
    _, comment = action_run
    github.refuse["POST"] = 403

    result = comment(environ)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "::warning title=RAG gate comment::could not comment on pull request #7" in (
        result.stdout
    )
    assert TOKEN not in result.stdout + result.stderr


@pytest.mark.slow
def test_the_action_rejects_an_unknown_comment_mode(
    environ: dict[str, str], action_run: Any
) -> None:
    _, comment = action_run

    result = comment(environ, comment="sometimes")

    assert result.returncode == 4
    assert "::error title=RAG gate::Input 'comment' is 'sometimes'" in result.stdout


# --- never stale: retries, the stamped commit, the outdated note ------------------------------

HEAD_SHA = "abcdef0123456789abcdef0123456789abcdef01"


@pytest.fixture
def pull_request_head(environ: dict[str, str]) -> str:
    """The event names the pull request's head commit, as GitHub's pull_request event does."""
    Path(environ["GITHUB_EVENT_PATH"]).write_text(
        json.dumps({"pull_request": {"number": PULL_REQUEST, "head": {"sha": HEAD_SHA}}}),
        encoding="utf-8",
    )
    environ["GITHUB_SHA"] = "f" * 40  # the merge commit, which is not what a reviewer pushed
    return HEAD_SHA


def test_the_comment_names_the_head_commit_linked_and_the_run_time(
    github: FakeGitHub, environ: dict[str, str], reports: dict[str, Path], pull_request_head: str
) -> None:
    main([str(reports["same"])], environ)

    body = github.ours()[0]["body"]
    link = f"[`abcdef0`](https://github.example/{REPOSITORY}/commit/{HEAD_SHA})"
    assert f"**Safe to deploy** — commit {link} · run " in body
    assert re.search(r"· run \d{4}-\d\d-\d\d \d\d:\d\d UTC", body)


def test_server_errors_and_rate_limits_are_retried_with_backoff(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    github.fail_next = [
        ("GET", 502, {}),
        ("POST", 500, {}),
        ("POST", 429, {"Retry-After": "3"}),
        ("POST", 403, {"x-ratelimit-remaining": "0", "Retry-After": "5"}),
    ]
    waits: list[float] = []

    assert main([str(reports["same"])], environ, sleep=waits.append) == 0

    assert "rag-gate comment: created" in capsys.readouterr().out
    assert waits == [1.0, 1.0, 3.0, 5.0]  # doubling per request; GitHub's own wait when named
    assert len(github.ours()) == 1


def test_a_failed_update_marks_the_earlier_verdict_outdated_and_says_so(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    pull_request_head: str,
) -> None:
    main([str(reports["same"])], environ)
    [comment] = github.ours()
    assert "## ✅ RAG gate: PASSED" in comment["body"]
    capsys.readouterr()
    environ["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
    # Four 500s exhaust the tries of the full update; the short note then goes through.
    github.fail_next = [("PATCH", 500, {})] * 4
    waits: list[float] = []

    assert main([str(reports["worse"])], environ, sleep=waits.append) == 0

    output = capsys.readouterr().out
    assert output.startswith("::error title=RAG gate comment::could not comment on pull request")
    assert "the earlier comment is now marked outdated" in output
    lines = comment["body"].splitlines()
    assert lines[0] == MARKER
    assert lines[1].startswith(
        "> ⚠️ **Outdated**: a newer run (verdict FAILED, commit `abcdef0`) could not update"
    )
    assert "## ✅ RAG gate: PASSED" in comment["body"]  # the old body stays, marked
    assert "not updated" in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_when_even_the_outdated_note_fails_the_log_says_the_comment_is_stale(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    main([str(reports["same"])], environ)
    capsys.readouterr()
    github.refuse["PATCH"] = 500

    main([str(reports["worse"])], environ, sleep=lambda _: None)

    output = capsys.readouterr().out
    assert "::error title=RAG gate comment::" in output
    assert "marking the earlier comment outdated failed too, so it still shows an earlier run" in (
        output
    )


def test_a_failed_update_of_the_same_run_adds_no_outdated_note(
    github: FakeGitHub, environ: dict[str, str], reports: dict[str, Path]
) -> None:
    main([str(reports["same"])], environ)
    github.fail_next = [("PATCH", 500, {})] * 4

    main([str(reports["same"])], environ, sleep=lambda _: None)

    assert "Outdated" not in github.ours()[0]["body"]
    assert [method for method, _ in github.requests].count("PATCH") == 4


def test_a_post_that_lands_but_answers_502_is_edited_not_posted_twice(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    github.land_then_fail = [("POST", 502)]

    assert main([str(reports["worse"])], environ, sleep=lambda _: None) == 0

    [comment] = github.ours()
    assert "## ❌ RAG gate: FAILED" in comment["body"]
    assert [method for method, _ in github.requests] == ["GET", "POST", "GET", "PATCH"]
    assert "rag-gate comment: created https://github.example/" in capsys.readouterr().out

    main([str(reports["same"])], environ)  # the next push edits that one comment

    [comment] = github.ours()
    assert "## ✅ RAG gate: PASSED" in comment["body"]


def test_a_second_marked_comment_is_deleted_and_the_first_kept_current(
    github: FakeGitHub, environ: dict[str, str], reports: dict[str, Path]
) -> None:
    first = github.add(PULL_REQUEST, f"{MARKER}\n## ✅ RAG gate: PASSED\nold", "github-actions")
    github.add(PULL_REQUEST, f"{MARKER}\n## ✅ RAG gate: PASSED\nolder copy", "github-actions")

    main([str(reports["worse"])], environ)

    assert [comment["id"] for comment in github.ours()] == [first["id"]]
    assert "## ❌ RAG gate: FAILED" in first["body"]
    assert ("DELETE", f"/repos/{REPOSITORY}/issues/comments/{first['id'] + 1}") in github.requests


def test_a_second_marked_comment_that_cannot_be_deleted_is_marked_outdated(
    github: FakeGitHub, environ: dict[str, str], reports: dict[str, Path]
) -> None:
    first = github.add(PULL_REQUEST, f"{MARKER}\n## ✅ RAG gate: PASSED\nold", "github-actions")
    second = github.add(PULL_REQUEST, f"{MARKER}\n## ✅ RAG gate: PASSED\ncopy", "someone")
    github.refuse["DELETE"] = 403

    main([str(reports["worse"])], environ, sleep=lambda _: None)

    assert "## ❌ RAG gate: FAILED" in first["body"]
    lines = second["body"].splitlines()
    assert lines[0] == MARKER
    assert lines[1].startswith("> ⚠️ **Outdated**: a second copy of the gate's comment")
    assert f"#issuecomment-{first['id']}" in lines[1]


@pytest.mark.parametrize(
    ("status", "annotation", "hint"),
    [
        (401, "error", "the token is bad or expired"),
        (403, "warning", "a fork's pull request gets a read-only GITHUB_TOKEN"),
    ],
)
def test_401_and_403_get_their_own_hint(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    status: int,
    annotation: str,
    hint: str,
) -> None:
    github.refuse["GET"] = status

    main([str(reports["same"])], environ, sleep=lambda _: None)

    output = capsys.readouterr().out
    assert output.startswith(f"::{annotation} title=RAG gate comment::")
    assert hint in output
    other = "read-only" if status == 401 else "bad or expired"
    assert other not in output
    assert [method for method, _ in github.requests] == ["GET"]  # no retry of a refusal


# --- what the comment lists ------------------------------------------------------------------


def test_a_long_failing_list_says_how_many_it_shows_and_keeps_own_threshold_cases(
    github: FakeGitHub, environ: dict[str, str], tmp_path: Path
) -> None:
    results = cases([0.1] * 57)
    # Above the gate's threshold, below its own: the cut by shortfall would drop it.
    strict = case("strict", 0.88, line=58).model_copy(update={"thresholds": {"faithfulness": 0.95}})
    report = write(tmp_path / "r.json", [*results, strict])

    main([str(report)], environ)

    body = github.ours()[0]["body"]
    assert "### Failing cases (58)" in body
    assert "Showing 10 of 58; the HTML report in the run's artifacts lists all." in body
    assert "| `golden.jsonl::strict` | faithfulness 0.88 &lt; 0.95 (case min) |" in body


def test_ungated_metrics_are_folded_and_never_flagged_and_the_baseline_is_named_by_commit(
    github: FakeGitHub, environ: dict[str, str], tmp_path: Path
) -> None:
    from pytest_ragas_gate.settings.config import GateConfig

    config = GateConfig(
        judge="anthropic",
        bootstrap_resamples=500,
        thresholds={"faithfulness": 0.5, "context_recall": None},
    )
    base = write(tmp_path / "base.json", cases([0.9] * 6), config=config)
    stamped = json.loads(base.read_text(encoding="utf-8"))
    stamped["run"]["commit"] = "1234567890abcdef"
    base.write_text(json.dumps(stamped), encoding="utf-8")
    worse = [case(f"c{index}", 0.9, recall=0.3, line=index + 1) for index in range(6)]
    raw = write(tmp_path / "raw.json", worse, config=config)
    compared = tmp_path / "now.json"
    cli.main(["regate", str(raw), "--baseline", str(base), "-o", str(compared)])

    main([str(compared)], environ)

    body = github.ours()[0]["body"]
    table, _, folded = body.partition("<details><summary>1 metric reported, not gated</summary>")
    assert "| `faithfulness` |" in table and "`context_recall`" not in table
    recall_row = next(line for line in folded.splitlines() if "`context_recall`" in line)
    assert "-0.60" in recall_row and "❌" not in recall_row
    link = f"https://github.example/{REPOSITORY}/commit/1234567890abcdef"
    assert f"Baseline of commit [`1234567`]({link}): 6 paired" in body
    assert str(tmp_path) not in body


def test_rag_gate_comment_is_the_same_command(
    github: FakeGitHub,
    environ: dict[str, str],
    reports: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    assert cli.main(["comment", str(reports["same"])]) == 0
    assert "rag-gate comment: created https://github.example/" in capsys.readouterr().out
    [comment] = github.ours()
    assert "## ✅ RAG gate: PASSED" in comment["body"]

    assert cli.main(["comment", str(reports["worse"]), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(MARKER + "\n## ❌ RAG gate: FAILED\n")
    assert github.ours() == [comment]  # a dry run posts nothing
