"""Time to gate N golden cases end to end with the offline judge.

Writes N synthetic cases (half English, half Chinese; question, a 3-sentence answer, 4 ranked
contexts, reference) to a temporary directory, runs ``pytest --rag-gate`` on them in a
subprocess, serially and with ``-n 2``, and prints the wall time of each run and per case.

    python benchmarks/offline_gate.py --cases 1000

Measured on the 2-core development machine (Python 3.11, 1,000 cases, all ten metrics):
see the README ("Performance") for the figures quoted from this script.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENGLISH_FACTS = [
    ("storage", "The Team plan includes {n} TB of storage per user."),
    ("versions", "Previous versions of a file are kept for {n} days."),
    ("sharing", "A folder can be shared with up to {n} people."),
    ("upload", "Files of up to {n} GB can be uploaded through the desktop app."),
]
CHINESE_FACTS = [
    ("storage", "团队版为每个用户提供 {n} TB 存储空间。"),
    ("versions", "文件的历史版本保留 {n} 天。"),
    ("sharing", "一个文件夹最多可以与 {n} 人共享。"),
    ("upload", "通过桌面应用最多可以上传 {n} GB 的文件。"),
]


def synthetic_case(index: int) -> dict[str, object]:
    facts = ENGLISH_FACTS if index % 2 == 0 else CHINESE_FACTS
    topic, template = facts[index % len(facts)]
    value = 10 + index % 90
    contexts = [template.format(n=value + offset) for offset in (0, 1, 2, 3)]
    # Every fifth answer states a wrong number, so the scores are not all 1.0.
    stated = value if index % 5 else value + 7
    answer = " ".join([template.format(n=stated), contexts[1], contexts[2]])
    question = (
        f"What is the {topic} limit for case {index}?"
        if facts is ENGLISH_FACTS
        else f"第 {index} 个用例的{topic}限制是多少？"
    )
    return {
        "id": f"case-{index}",
        "question": question,
        "answer": answer,
        "contexts": [
            {"id": f"c{index}-{rank}", "text": text} for rank, text in enumerate(contexts)
        ],
        "reference": contexts[0],
        "relevant_context_ids": [f"c{index}-0"],
    }


def run_gate(directory: Path, *extra: str) -> float:
    started = time.perf_counter()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--rag-gate",
            "--rag-gate-judge",
            "offline",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rag-gate-output",
            "json=report.json",
            *extra,
        ],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):
        sys.stderr.write(completed.stdout[-3000:] + completed.stderr[-3000:])
        raise SystemExit(f"pytest exited {completed.returncode}")
    report = json.loads((directory / "report.json").read_text(encoding="utf-8"))
    scored = sum(1 for case in report["cases"] if not case["error"])
    print(f"  scored {scored} of {len(report['cases'])} cases; verdict {report['verdict']}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="golden cases (default: 1000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        with (directory / "golden_bench.jsonl").open("w", encoding="utf-8") as handle:
            for index in range(args.cases):
                handle.write(json.dumps(synthetic_case(index), ensure_ascii=False) + "\n")
        for label, extra in (("serial", ("-p", "no:xdist")), ("-n 2", ("-n", "2"))):
            print(f"{label}:")
            wall = run_gate(directory, *extra)
            print(
                f"  wall {wall:.2f} s for {args.cases} cases "
                f"({wall / args.cases * 1000:.2f} ms/case)"
            )


if __name__ == "__main__":
    main()
