"""rag-gate synth reads prose only: non-prose left out and counted, real titles, languages."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from synth_corpora import pdf_bytes

from pytest_ragas_gate.cli import main

MIT = """\
MIT License

Copyright (c) 2024 Example Authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this
software and associated documentation files, to deal in the Software without restriction.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
"""

CHANGELOG = """\
# Changelog

## 2.4.0 (2024-03-01)

- Fixed upload retries (#812)
- Added resumable uploads (#790)

## 2.3.1 (2024-01-15)

- Bumped the TLS library (#771)
"""

README = """\
Ferry Line
==========

The ferry crosses the lake in 40 minutes. Tickets are sold at the pier for $7.

```python
import ferry
ferry.book(seats=2)
```

+--------+---------+
| Route  | Minutes |
+========+=========+
| North  | 40      |
+--------+---------+

Licence
-------

Released under the MIT License. See LICENSE for details.
"""

GUIDE_HTML = """\
<!doctype html><html><head><title>Boarding — Ferry Line 2.4 documentation</title></head>
<body>
<div class="related" role="navigation"><a href="index.html">index</a> | <a>next</a> |
<a>previous</a> | Ferry Line 2.4 documentation</div>
<div class="body" role="main">
<h1>Boarding</h1>
<p>Boarding closes 10 minutes before departure. Cars board through the lower deck.</p>
<pre>$ ferry board --ticket 1234
Boarded.</pre>
</div>
<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3>
<ul><li>Boarding</li></ul></div>
</body></html>
"""

ZH_HARD_WRAPPED = """\
# 渡轮乘客须知

渡轮每天早上7点从北岸码头出发，全程需要40分钟。乘客可以在 ferry_app 中
购买电子票，电子票在购买后2小时内有效。
"""


def run(
    tmp_path: Path, docs: Path, *extra: str
) -> tuple[int, list[dict[str, Any]], list[dict[str, Any]]]:
    out, chunks = tmp_path / "golden.jsonl", tmp_path / "chunks.jsonl"
    status = main(
        [
            "synth",
            str(docs),
            "-o",
            str(out),
            "--judge",
            "offline",
            "--chunks-out",
            str(chunks),
            *extra,
        ]
    )
    rows = (
        [json.loads(line) for line in out.read_text("utf-8").splitlines()] if out.exists() else []
    )
    chunk_rows = (
        [json.loads(line) for line in chunks.read_text("utf-8").splitlines()]
        if chunks.exists()
        else []
    )
    return status, rows, chunk_rows


@pytest.fixture()
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "LICENSE.txt").write_text(MIT, encoding="utf-8")
    (folder / "CHANGELOG.md").write_text(CHANGELOG, encoding="utf-8")
    (folder / "README.rst").write_text(README, encoding="utf-8")
    (folder / "boarding.html").write_text(GUIDE_HTML, encoding="utf-8")
    (folder / "须知.md").write_text(ZH_HARD_WRAPPED, encoding="utf-8")
    header = "Ferry Line Operations Manual"
    (folder / "manual.pdf").write_bytes(
        pdf_bytes(
            [
                [header, "The north ferry carries 120 passengers.", "Page 1"],
                [header, "Life jackets are stored under every seat.", "Page 2"],
                [header, "Pets travel in the open deck area only.", "Page 3"],
            ],
            title="Ferry Line Operations Manual",
        )
    )
    return folder


def test_non_prose_is_left_out_of_chunks_and_counted_per_document(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, rows, chunks = run(tmp_path, docs, "--n", "6", "--mix", "single=1")

    assert status == 0
    text = "\n".join(chunk["text"] for chunk in chunks)
    for leftover in (
        "Permission is hereby granted",
        "#812",
        "import ferry",
        "| Route",
        "ferry board --ticket",
        "previous",
        "Table of Contents",
        "MIT License",
    ):
        assert leftover not in text, leftover
    assert "LICENSE.txt" not in {chunk["document"] for chunk in chunks}
    assert "crosses the lake in 40 minutes" in text
    out = capsys.readouterr().out
    summary = next(line for line in out.splitlines() if "left out as non-prose" in line)
    assert "LICENSE.txt (licence 4)" in summary
    assert "CHANGELOG.md (changelog" in summary
    assert re.search(r"README\.rst \(licence 1, code 1, table 1\)", summary), summary
    assert re.search(r"boarding\.html \(code 1, navigation \d\)", summary), summary
    assert all("#812" not in row["question"] for row in rows)


def test_titles_are_the_documents_own_and_pdf_headers_are_stripped(
    tmp_path: Path, docs: Path
) -> None:
    pytest.importorskip("pypdf")
    _, _, chunks = run(tmp_path, docs, "--n", "2", "--mix", "single=1")

    titles = {chunk["document"]: chunk["title"] for chunk in chunks}
    assert titles["boarding.html"] == "Boarding"
    assert titles["README.rst"] == "Ferry Line"
    assert titles["manual.pdf"] == "Ferry Line Operations Manual"
    assert titles["须知.md"] == "渡轮乘客须知"
    pdf_text = "\n".join(c["text"] for c in chunks if c["document"] == "manual.pdf")
    assert "Operations Manual" not in pdf_text and "Page 2" not in pdf_text
    assert "carries 120 passengers" in pdf_text and "under every seat" in pdf_text


def test_a_first_heading_naming_a_section_is_no_title(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "httplib2.md").write_text(
        "Introduction\n============\n\n"
        "The module can handle any HTTP request method, not just GET and POST. "
        "It keeps a private cache that understands the Cache-Control header.\n",
        encoding="utf-8",
    )
    _, rows, chunks = run(tmp_path, folder, "--n", "2", "--mix", "single=1")

    assert {chunk["title"] for chunk in chunks} == {"httplib2"}
    assert rows and not any("Introduction" in row["question"] for row in rows)


def test_hard_wrapped_chinese_is_joined_and_identifiers_do_not_flip_the_language(
    tmp_path: Path, docs: Path
) -> None:
    _, rows, chunks = run(tmp_path, docs, "--n", "12", "--mix", "single=1")

    chinese = next(chunk for chunk in chunks if chunk["document"] == "须知.md")
    assert "ferry_app 中购买电子票" in chinese["text"]
    asked = [row for row in rows if "须知.md" in row["tags"]]
    assert asked and all(re.search(r"[\u4e00-\u9fff]", row["question"]) for row in asked)


def test_a_folder_of_only_code_and_licences_says_so_and_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "code"
    folder.mkdir()
    (folder / "LICENSE.txt").write_text(MIT, encoding="utf-8")
    (folder / "snippets.md").write_text(
        "```python\ndef book(seats):\n    return seats * 7\n```\n", encoding="utf-8"
    )

    status, rows, _ = run(tmp_path, folder)

    assert status == 4 and rows == []
    err = capsys.readouterr().err
    assert "no prose under" in err and "licence 4" in err and "code 1" in err
    assert "Traceback" not in err


def test_an_image_only_pdf_is_named_in_a_warning_beside_other_documents(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pypdf")
    (docs / "scan.pdf").write_bytes(pdf_bytes([[], []]))

    status, _, chunks = run(tmp_path, docs, "--n", "2", "--mix", "single=1")

    assert status == 0
    captured = capsys.readouterr()
    assert "scan.pdf has no text layer (an image-only, scanned PDF?)" in captured.err
    assert "scan.pdf (image-only PDF, no text)" in captured.out
    assert "scan.pdf" not in {chunk["document"] for chunk in chunks}


def test_only_image_only_pdfs_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pypdf")
    folder = tmp_path / "scans"
    folder.mkdir()
    (folder / "scan.pdf").write_bytes(pdf_bytes([[]]))

    status, _, _ = run(tmp_path, folder)

    assert status == 4
    assert "every PDF is image-only" in capsys.readouterr().err


def test_cases_spread_over_the_whole_of_a_long_document(tmp_path: Path) -> None:
    folder = tmp_path / "long"
    folder.mkdir()
    towns = "Arden Bexley Corran Dunmore Elgin Fenwick Garvan Hollin Islay Jura Kelso Lorne".split()
    boats = "Osprey Puffin Heron Tern Gannet Skua Merlin Kestrel Plover Curlew".split()
    sections = [
        f"## {towns[n % 12]} {n}\n\nThe {boats[n % 10]} ferry waits for {n + 2} minutes at "
        f"{towns[n % 12]} pier on {['weekdays', 'Sundays', 'holidays', 'Fridays'][n % 4]}.\n"
        for n in range(40)
    ]
    (folder / "timetable.md").write_text("# Timetable\n\n" + "\n".join(sections), "utf-8")

    _, rows, chunks = run(
        tmp_path, folder, "--n", "10", "--mix", "single=1", "--chunk-tokens", "30"
    )

    positions = sorted(
        int(chunk_id.rsplit("#", 1)[1].split("-")[0])
        for row in rows
        for chunk_id in row["relevant_context_ids"]
    )
    deciles = {position * 10 // len(chunks) for position in positions}
    # Read from the top, ten cases would all come from the first quarter.
    assert len(rows) == 10 and len(deciles) >= 6, positions
    assert max(positions) >= 0.8 * len(chunks) and min(positions) == 0, positions


def test_the_same_fact_in_two_documents_gives_one_case(tmp_path: Path) -> None:
    folder = tmp_path / "twice"
    folder.mkdir()
    fact = "Boarding closes 10 minutes before departure."
    (folder / "a.md").write_text(f"# Boarding\n\n{fact}\n", "utf-8")
    (folder / "b.md").write_text(f"# Boarding rules\n\n{fact}\n", "utf-8")

    _, rows, _ = run(tmp_path, folder, "--n", "2", "--mix", "single=1")

    assert [row["reference"] for row in rows] == [fact]
