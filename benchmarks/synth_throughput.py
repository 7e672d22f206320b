"""Calls, prompt tokens and wall time of ``rag-gate synth`` with an LLM judge; a cached re-run.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/synth_throughput.py --docs 40 --cases 100 --latency 0.3

A deterministic corpus of ``--docs`` help pages (three quarters English, one quarter
Chinese; three sections of three fact sentences each) is written to a temporary folder,
and ``rag-gate synth`` runs in a subprocess against the local fake LLM server
(``tests/fakellm.py``), which answers every request after ``--latency`` seconds through
the real SDK. The fake writer makes every fifth question refer to "this section" and the
fake critic drops exactly those, so the critic drop share and the top-up round are
exercised. Then the same command runs again and replays the cache. Tokens are the fake
server's estimate (one per CJK character, one per four other characters).

Goals: at most 2 calls and 3,000 prompt tokens per kept case, 100 cases in at most 15 s,
a cached re-run 0 calls. Wall time includes starting Python and importing the SDK.

Measured with the command above (and ``--judge openai``) on a shared 2-core machine::

    judge      kept  calls/case  prompt tok/case  wall    critic dropped  cached re-run
    anthropic  100   1.60        1,434            7.31 s  23%             0 calls, 1.01 s
    openai     100   1.60        1,416            5.36 s  23%             0 calls, 0.95 s

Two rounds: the first asks for 20% more than the target at two questions per request over
all 80 chunks (all 40 documents covered), one critique request per write request; the
second tops up what the critic and the near-duplicate filter took out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from fakellm import FakeLLM, input_tokens_of  # noqa: E402

KEY = "test-key-not-real"

_PRODUCTS = ["Nimbus", "Orbit", "Cobalt", "Lumen", "Harbor", "Quill", "Summit", "Vertex"]
_TOPICS = ["Storage", "Billing", "Sharing", "Security", "Uploads", "Versions"]
_EN_FACTS = [
    "The {p} {t} plan includes {n} GB of space for every member of a workspace.",
    "Administrators of {p} can change the {t} settings within {n} minutes of a request.",
    "A {p} workspace keeps {t} records for {n} days before they are archived.",
    "Support for {p} {t} answers tickets in about {n} hours on working days.",
    "The {p} mobile app syncs {t} data every {n} seconds over Wi-Fi.",
]
_ZH_FACTS = [
    "{p}的{t}套餐为每位成员提供{n} GB空间。",
    "{p}的管理员可以在{n}分钟内修改{t}设置。",
    "{p}工作区会将{t}记录保留{n}天，然后归档。",
    "{p}的{t}支持团队通常在{n}小时内回复工单。",
    "{p}移动应用每{n}秒通过Wi-Fi同步一次{t}数据。",
]
_ZH_TOPICS = ["存储", "账单", "共享", "安全", "上传", "版本"]


def write_corpus(folder: Path, documents: int) -> None:
    """``documents`` Markdown help pages with numbered facts, a quarter of them Chinese."""
    for index in range(documents):
        product = _PRODUCTS[index % len(_PRODUCTS)] + (f" {index // len(_PRODUCTS) + 1}")
        chinese = index % 4 == 3
        lines = [f"# {product} {'帮助' if chinese else 'help'}", ""]
        for section in range(3):
            topics = _ZH_TOPICS if chinese else _TOPICS
            topic = topics[(index + section) % len(topics)]
            lines += [f"## {topic}", ""]
            facts = _ZH_FACTS if chinese else _EN_FACTS
            sentences = [
                facts[(index + section + k) % len(facts)].format(
                    p=product, t=topic, n=(index * 7 + section * 3 + k * 11) % 90 + 5
                )
                for k in range(3)
            ]
            lines += [("" if chinese else " ").join(sentences), ""]
        (folder / f"page-{index:03d}.md").write_text("\n".join(lines), encoding="utf-8")


def run_synth(
    corpus: Path, output: Path, cache: Path, cases: int, url: str, judge: str
) -> tuple[float, str]:
    env = {**os.environ}
    if judge == "anthropic":
        env.update(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=url)
    else:
        env.update(OPENAI_API_KEY=KEY, OPENAI_BASE_URL=f"{url}/v1")
    started = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_ragas_gate.cli",
            "synth",
            str(corpus),
            "-o",
            str(output),
            "--n",
            str(cases),
            "--judge",
            judge,
            "--cache-dir",
            str(cache),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=corpus.parent,
    )
    wall = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(
            f"rag-gate synth failed ({result.returncode}):\n{result.stdout}{result.stderr}"
        )
    return wall, result.stdout


def main() -> None:
    """Run the benchmark and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--judge", choices=["anthropic", "openai"], default="anthropic")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as work, FakeLLM(latency_s=options.latency) as server:
        root = Path(work)
        corpus = root / "corpus"
        corpus.mkdir()
        write_corpus(corpus, options.docs)
        output, cache = root / "golden_synth.jsonl", root / "cache"
        wall, summary = run_synth(corpus, output, cache, options.cases, server.url, options.judge)
        calls = len(server.judge_requests())
        api = "anthropic" if options.judge == "anthropic" else "openai"
        prompt_tokens = sum(
            input_tokens_of(api, request.body) for request in server.judge_requests()
        )
        kept = len(output.read_text(encoding="utf-8").splitlines())
        kinds: dict[str, int] = {}
        for line in output.read_text(encoding="utf-8").splitlines():
            kind = json.loads(line)["tags"][1]
            kinds[kind] = kinds.get(kind, 0) + 1
        critic = re.search(r"critic dropped (\d+)%", summary)
        rerun_wall, _ = run_synth(corpus, output, cache, options.cases, server.url, options.judge)
        rerun_calls = len(server.judge_requests()) - calls
    print(summary)
    print(
        f"judge      kept  calls/case  prompt tok/case  wall     critic dropped  cached re-run\n"
        f"{options.judge:<10} {kept:<5} {calls / kept:<11.2f} {prompt_tokens / kept:<16,.0f} "
        f"{wall:<8.2f} {critic.group(1) + '%' if critic else '-':<15} "
        f"{rerun_calls} calls, {rerun_wall:.2f} s"
    )
    print("kinds: " + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items())))


if __name__ == "__main__":
    main()
