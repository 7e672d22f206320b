"""Wall time, peak memory and report sizes of a large offline gate run.

Writes N realistic golden cases to a temporary directory as JSONL — a question, an answer
of 2–4 sentences, about 3 KB of contexts in 3–5 ranked chunks, a reference and the ids of
the relevant chunks; three cases in four English, one in four Chinese; about one answer in
five states a wrong number — then runs, in a subprocess::

    pytest --rag-gate <dir> --rag-gate-judge offline --rag-gate-set cache.mode=off \\
        --rag-gate-output json=r.json --rag-gate-output junit=j.xml -p no:cacheprovider -q

and prints the number of cases, the golden input size, the wall time, the peak resident
memory (of the largest process, from GNU ``/usr/bin/time -v``, and of the whole pytest
process tree, sampled from ``/proc``), and the sizes of the JSON report (with its ratio to
the input) and of the JUnit file::

    python benchmarks/scale_gate.py --cases 2000
    python benchmarks/scale_gate.py --cases 50000 --xdist --keep

The target for 50,000 cases is under 8 minutes, under 2 GB peak and a JSON report at most
twice the size of the golden input.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

GOLDEN_NAME = "golden_scale.jsonl"
REPORT_NAME = "r.json"
JUNIT_NAME = "j.xml"
CONTEXT_BYTES = 3000
SAMPLE_INTERVAL_S = 0.2
GNU_TIME = Path("/usr/bin/time")

PRODUCTS = ["Nimbus Drive", "Harbor CRM", "Atlas Analytics", "Quill Docs", "Beacon Mail"]
PLANS = ["Starter", "Team", "Business", "Enterprise"]
FEATURES = [
    ("storage", "TB of storage per user"),
    ("retention", "days of version history"),
    ("sharing", "people per shared folder"),
    ("upload", "GB per uploaded file"),
    ("seats", "seats per workspace"),
    ("api", "API requests per minute"),
    ("audit", "months of audit log"),
    ("backup", "daily backups kept"),
]
ENGLISH_SENTENCES = [
    "The {plan} plan of {product} includes {n} {unit}.",
    "Administrators of {product} can raise the limit to {m} {unit} on the {plan} plan.",
    "On the {plan} plan, {product} enforces the limit of {n} {unit} for every workspace.",
    "Customers who need more than {n} {unit} should contact sales before renewal.",
    "The {feature} limit of {product} was last changed in {year} after customer feedback.",
    "Support engineers check the {feature} settings when a {plan} customer reports errors.",
    "Changes to the {feature} policy take effect at the start of the next billing cycle.",
    "{product} shows a warning in the admin console when usage reaches {pct} percent.",
    "Data centres in Frankfurt and Virginia both apply the same {feature} rules.",
    "The {plan} plan costs {price} dollars per user per month when billed annually.",
    "Exports of {feature} reports are available as CSV from the admin console.",
    "Single sign-on is required for {plan} workspaces with more than {m} members.",
]
CHINESE_SENTENCES = [
    "{product}的{plan}版提供 {n} {unit_zh}。",
    "管理员可以在{plan}版中把上限提高到 {m} {unit_zh}。",
    "超过 {n} {unit_zh}的客户应在续约前联系销售团队。",
    "{product}在使用量达到百分之 {pct} 时会在管理控制台中显示警告。",
    "{feature_zh}政策的变更从下一个计费周期开始生效。",
    "法兰克福和弗吉尼亚的数据中心都执行相同的{feature_zh}规则。",
    "{plan}版按年付费时每位用户每月 {price} 美元。",
    "支持工程师会在{plan}版客户报告错误时检查{feature_zh}设置。",
    "{feature_zh}上限最近一次调整是在 {year} 年，依据的是客户反馈。",
]
CHINESE_UNITS = {
    "storage": ("TB 存储空间", "存储"),
    "retention": ("天的版本历史", "版本保留"),
    "sharing": ("位共享成员", "共享"),
    "upload": ("GB 的单个文件", "上传"),
    "seats": ("个席位", "席位"),
    "api": ("次每分钟的 API 请求", "API 限流"),
    "audit": ("个月的审计日志", "审计日志"),
    "backup": ("份每日备份", "备份"),
}


@dataclass(frozen=True)
class Topic:
    """What one case is about: the facts its contexts, answer and reference share."""

    product: str
    plan: str
    feature: str
    unit: str
    value: int
    chinese: bool

    def fill(self, template: str, rng: random.Random, value: int | None = None) -> str:
        """One sentence about the topic, with incidental numbers drawn from ``rng``."""
        unit_zh, feature_zh = CHINESE_UNITS[self.feature]
        return template.format(
            product=self.product,
            plan=self.plan,
            feature=self.feature,
            feature_zh=feature_zh,
            unit=self.unit,
            unit_zh=unit_zh,
            n=self.value if value is None else value,
            m=self.value * rng.randint(2, 5),
            pct=rng.choice((70, 80, 90, 95)),
            price=rng.randint(5, 60),
            year=rng.randint(2018, 2025),
        )


def _topic(rng: random.Random, chinese: bool) -> Topic:
    feature, unit = rng.choice(FEATURES)
    return Topic(
        product=rng.choice(PRODUCTS),
        plan=rng.choice(PLANS),
        feature=feature,
        unit=unit,
        value=rng.randint(2, 500),
        chinese=chinese,
    )


def _chunk(topic: Topic, rng: random.Random, target_bytes: int, lead: str | None) -> str:
    templates = CHINESE_SENTENCES if topic.chinese else ENGLISH_SENTENCES
    sentences = [lead] if lead else []
    while len(" ".join(sentences).encode("utf-8")) < target_bytes:
        sentences.append(topic.fill(rng.choice(templates), rng))
    return ("" if topic.chinese else " ").join(sentences)


def realistic_case(index: int, seed: int = 0) -> dict[str, object]:
    """One golden case of about 3 KB of contexts, deterministic in ``index`` and ``seed``.

    Args:
        index: The case's position; every fourth case is Chinese.
        seed: Varies the whole set.

    Returns:
        A JSON-ready golden case.
    """
    rng = random.Random(seed * 1_000_003 + index)
    topic = _topic(rng, chinese=index % 4 == 3)
    templates = CHINESE_SENTENCES if topic.chinese else ENGLISH_SENTENCES
    key_fact = topic.fill(templates[0], rng)
    chunk_count = rng.randint(3, 5)
    relevant_rank = rng.randrange(chunk_count)
    per_chunk = CONTEXT_BYTES // chunk_count
    contexts = [
        {
            "id": f"doc{index}-{rank}",
            "text": _chunk(topic, rng, per_chunk, key_fact if rank == relevant_rank else None),
        }
        for rank in range(chunk_count)
    ]
    # About one answer in five states a wrong number, so scores are not all 1.0.
    stated = topic.value if rng.random() > 0.2 else topic.value + rng.randint(1, 9)
    answer_sentences = [topic.fill(templates[0], rng, value=stated)]
    answer_sentences += [topic.fill(rng.choice(templates), rng) for _ in range(rng.randint(1, 3))]
    if topic.chinese:
        question = f"{topic.product}的{topic.plan}版提供多少{CHINESE_UNITS[topic.feature][1]}？"
    else:
        question = f"How many {topic.unit} does the {topic.plan} plan of {topic.product} include?"
    return {
        "id": f"case-{index:06d}",
        "question": question,
        "answer": ("" if topic.chinese else " ").join(answer_sentences),
        "contexts": contexts,
        "reference": key_fact,
        "relevant_context_ids": [f"doc{index}-{relevant_rank}"],
        "tags": ["zh" if topic.chinese else "en", topic.feature],
    }


def write_golden(directory: Path, cases: int, seed: int) -> Path:
    """Write ``cases`` realistic cases as one JSONL golden file; returns its path."""
    path = directory / GOLDEN_NAME
    with path.open("w", encoding="utf-8") as handle:
        for index in range(cases):
            handle.write(json.dumps(realistic_case(index, seed), ensure_ascii=False) + "\n")
    return path


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(child) for child in task.read_text().split()]
        except OSError:
            continue
    return found


def _tree(pid: int) -> Iterator[int]:
    pending = [pid]
    while pending:
        current = pending.pop()
        yield current
        pending += _children(current)


def _rss_bytes(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class TreeSampler:
    """Samples the summed RSS of a process and its descendants until stopped."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._stop = threading.Event()
        self.peak_bytes = 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = sum(_rss_bytes(pid) for pid in _tree(self._pid))
            self.peak_bytes = max(self.peak_bytes, total)
            self._stop.wait(SAMPLE_INTERVAL_S)


@dataclass(frozen=True)
class RunFigures:
    """What one gate run measured."""

    exit_code: int
    wall_s: float
    cpu_s: float | None
    largest_process_peak_bytes: int | None
    tree_peak_bytes: int
    output_tail: str


def _gnu_time_available() -> bool:
    if not GNU_TIME.exists():
        return False
    probe = subprocess.run([str(GNU_TIME), "-v", "true"], capture_output=True, text=True)
    return "Maximum resident set size" in probe.stderr


def _time_field(time_output: str, label: str) -> str | None:
    for line in time_output.splitlines():
        if label in line:
            return line.rsplit(":", 1)[1].strip()
    return None


def _parse_time_log(time_output: str) -> tuple[float | None, int | None]:
    """User+system CPU seconds and the largest process's peak RSS, from ``time -v``."""
    user = _time_field(time_output, "User time (seconds)")
    system = _time_field(time_output, "System time (seconds)")
    peak_kb = _time_field(time_output, "Maximum resident set size")
    cpu = None if user is None or system is None else float(user) + float(system)
    return cpu, None if peak_kb is None else int(peak_kb) * 1024


def gate_arguments(directory: Path) -> list[str]:
    """The pytest arguments of a benchmarked gate run: offline judge, no cache, both reports."""
    return [
        "--rag-gate",
        str(directory),
        "--rag-gate-judge",
        "offline",
        "--rag-gate-set",
        "cache.mode=off",
        "--rag-gate-output",
        f"json={REPORT_NAME}",
        "--rag-gate-output",
        f"junit={JUNIT_NAME}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-q",
    ]


def run_gate(directory: Path, extra: Sequence[str]) -> RunFigures:
    """Run the gate over ``directory`` and measure it.

    Args:
        directory: Holds the golden file; the reports are written there.
        extra: Further pytest arguments (``-n 2``, ``-p no:xdist``).

    Returns:
        Exit code, wall time and peak memory of the run.
    """
    pytest_command = [sys.executable, "-m", "pytest", *gate_arguments(directory), *extra]
    time_log = directory / "time.log"
    use_gnu_time = _gnu_time_available()
    command = (
        [str(GNU_TIME), "-v", "-o", str(time_log), *pytest_command]
        if use_gnu_time
        else pytest_command
    )
    environment = {**os.environ, "CI": "1"}
    stdout_path = directory / "pytest.out"
    started = time.perf_counter()
    with stdout_path.open("w", encoding="utf-8") as output:
        process = subprocess.Popen(
            command, cwd=directory, stdout=output, stderr=subprocess.STDOUT, env=environment
        )
        with TreeSampler(process.pid) as sampler:
            exit_code = process.wait()
    wall = time.perf_counter() - started
    cpu, largest = _parse_time_log(time_log.read_text()) if use_gnu_time else (None, None)
    tail = stdout_path.read_text(encoding="utf-8", errors="replace")[-4000:]
    return RunFigures(exit_code, wall, cpu, largest, sampler.peak_bytes, tail)


def _mb(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"


def _report_timing(report_path: Path) -> str:
    """Scoring time and verdict from the JSON report, without keeping the report around."""
    with report_path.open(encoding="utf-8") as handle:
        report = json.load(handle)
    timing = report.get("timing", {})
    cases = report.get("cases", [])
    scored = sum(1 for case in cases if not case.get("error"))
    return (
        f"verdict {report.get('verdict')}; {scored} of {len(cases)} cases scored; "
        f"scoring {timing.get('scoring_s')} s of {timing.get('wall_s')} s in the gate"
    )


def print_figures(cases: int, golden: Path, figures: RunFigures, directory: Path) -> None:
    """Print one run's figures, one per line."""
    input_size = golden.stat().st_size
    report = directory / REPORT_NAME
    junit = directory / JUNIT_NAME
    print(f"cases               {cases:,}")
    print(f"golden input        {_mb(input_size)} ({input_size / cases / 1000:.2f} KB per case)")
    print(f"exit code           {figures.exit_code}")
    per_case = figures.wall_s / cases * 1000
    print(f"wall time           {figures.wall_s:,.1f} s ({per_case:.2f} ms/case)")
    if figures.cpu_s is not None:
        print(f"CPU time            {figures.cpu_s:,.1f} s user+sys (/usr/bin/time -v)")
    if figures.largest_process_peak_bytes is not None:
        largest = _mb(figures.largest_process_peak_bytes)
        print(f"peak RSS (largest)  {largest} (/usr/bin/time -v)")
    tree = _mb(figures.tree_peak_bytes)
    print(f"peak RSS (tree)     {tree} (sampled every {SAMPLE_INTERVAL_S} s)")
    if report.exists():
        size = report.stat().st_size
        print(f"JSON report         {_mb(size)} ({size / input_size:.2f}× the input)")
        print(f"                    {_report_timing(report)}")
    else:
        print("JSON report         not written")
    print(f"JUnit report        {_mb(junit.stat().st_size) if junit.exists() else 'not written'}")
    if figures.exit_code not in (0, 1):
        print("pytest output (tail):")
        print(figures.output_tail)


def main() -> None:
    """Generate the golden set, run the gate once and print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cases", type=int, default=50_000, help="golden cases (default: 50000)")
    parser.add_argument("--xdist", action="store_true", help="run with -n 2 (default: serial)")
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary directory (default: remove it)"
    )
    parser.add_argument("--seed", type=int, default=0, help="varies the golden set (default: 0)")
    args = parser.parse_args()
    if args.cases < 1:
        parser.error("--cases must be at least 1")

    directory = Path(tempfile.mkdtemp(prefix="rag-gate-scale-"))
    try:
        (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        started = time.perf_counter()
        golden = write_golden(directory, args.cases, args.seed)
        print(f"wrote {args.cases:,} cases in {time.perf_counter() - started:.1f} s to {golden}")
        extra = ["-n", "2"] if args.xdist else ["-p", "no:xdist"]
        print(f"running: pytest --rag-gate … {' '.join(extra)}", flush=True)
        figures = run_gate(directory, extra)
        print_figures(args.cases, golden, figures, directory)
    finally:
        if args.keep:
            print(f"kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
