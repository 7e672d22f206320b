"""The ``rag-gate synth`` and ``rag-gate synth review`` commands.

``rag-gate synth PATH... -o golden_synth.jsonl --n 100`` reads documents, chunks them,
generates questions through the judge (the gate's judge stack: same selection, cache,
retries, budgets and settings from ``rag_gate.yaml``) and writes golden cases with
``review: pending``. ``rag-gate synth review FILE`` walks through the pending cases.

Exit statuses: 0 written (or reviewed), 1 nothing could be generated or a budget stopped
the run (what was generated is still written), 4 bad command line or input.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from ..command_line import EXIT_FAILED, EXIT_PASSED, CommandParser, run_guarded
from ..exceptions import UsageError
from ..judges.metered import MeteredJudge
from ..settings.config import load_config
from .chunking import Chunk, chunk_documents
from .documents import Document, read_documents
from .golden_output import (
    Carried,
    carry_reviewed,
    case_rows,
    chunk_rows,
    kind_of,
    read_rows,
    write_jsonl,
)
from .offer import (
    CorpusOffer,
    compared_chunks,
    corpus_offer,
    fruitful_chunks,
    linked_chunk_pairs,
)
from .offline import OfflineSynthJudge
from .pipeline import SynthOutcome, synthesize
from .plan import DEFAULT_MIX, kind_counts, parse_kinds
from .prose import NON_PROSE
from .requests import KINDS, QuestionKind
from .review import review_file

__all__ = ["build_synth_parser", "run"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def build_synth_parser() -> argparse.ArgumentParser:
    """The parser of ``rag-gate synth``."""
    mix = ",".join(f"{kind}={share:g}" for kind, share in DEFAULT_MIX.items())
    parser = CommandParser(
        prog="rag-gate synth",
        description="Generate a golden set from documents (.md .rst .txt .html .pdf, .jsonl of "
        "{id, text, title?}): questions with references and the ids of the chunks that "
        "answer them, for live-mode gating with id_recall, id_precision and mrr. Cases are "
        "written with review: pending; check them with `rag-gate synth review FILE`.",
        epilog="Exit status: 0 written, 1 nothing generated or a budget stopped the run, "
        "4 bad command line or input.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="document files and folders")
    parser.add_argument(
        "-o",
        "--output",
        default="golden_synth.jsonl",
        metavar="FILE",
        help="the golden file to write (default: golden_synth.jsonl)",
    )
    parser.add_argument(
        "--n", type=_positive, default=100, metavar="N", help="cases to generate (default: 100)"
    )
    parser.add_argument(
        "--mix",
        default=None,
        metavar="KIND=SHARE,...",
        help=f"shares of {', '.join(KINDS)} (default: {mix})",
    )
    parser.add_argument(
        "--kinds",
        default=None,
        metavar="KIND,...",
        help="write only these kinds, in equal shares (or their --mix shares); "
        "conversation (2-3 turns whose follow-ups need the earlier turns) is written only "
        "when listed here or given a --mix share",
    )
    parser.add_argument(
        "--chunk-tokens",
        type=_positive,
        default=300,
        metavar="N",
        help="target chunk size in tokens (default: 300)",
    )
    parser.add_argument(
        "--per-request",
        type=_positive,
        default=3,
        metavar="N",
        help="questions one write request asks for (default: 3)",
    )
    parser.add_argument(
        "--judge",
        choices=["auto", "anthropic", "openai", "offline"],
        default=None,
        help="who writes the questions, as for the gate (default: the config's, else auto)",
    )
    parser.add_argument("--model", default=None, metavar="NAME", help="the judge model")
    parser.add_argument("--config", default=None, metavar="FILE", help="a rag_gate.yaml")
    parser.add_argument(
        "--cache",
        choices=["readwrite", "read", "off"],
        default=None,
        help="judge reply cache mode (default: readwrite)",
    )
    parser.add_argument("--cache-dir", default=None, metavar="PATH", help="judge cache folder")
    parser.add_argument(
        "--concurrency",
        type=_positive,
        default=None,
        metavar="N",
        help="most concurrent judge requests (default: 32)",
    )
    parser.add_argument(
        "--max-cost",
        type=_non_negative,
        default=None,
        metavar="USD",
        help="stop sending requests after this estimated spend",
    )
    parser.add_argument(
        "--max-calls",
        type=_positive,
        default=None,
        metavar="N",
        help="stop sending requests after this many calls",
    )
    parser.add_argument(
        "--chunks-out",
        default=None,
        metavar="FILE",
        help="also write the chunks as JSON Lines {id, text, document, title}, to index "
        "them in the RAG system under the same ids",
    )
    parser.add_argument(
        "--dropped",
        default=None,
        metavar="FILE",
        help="write every dropped question with its reason as JSON Lines",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="drop reviewed cases of OUTPUT whose chunks are gone from the documents",
    )
    return parser


def build_review_parser() -> argparse.ArgumentParser:
    """The parser of ``rag-gate synth review``."""
    parser = CommandParser(
        prog="rag-gate synth review",
        description="Show the pending cases of a generated golden file one by one — accept, "
        "edit (question, reference, kind, chunk ids; checked against the chunks), reject, "
        "or show the chunks in full — and write each decision back. Reads "
        "answers from standard input, so it can be scripted. The gate skips rejected cases "
        "and warns how many pending cases it scores.",
    )
    parser.add_argument("file", metavar="FILE", help="a golden file written by rag-gate synth")
    parser.add_argument(
        "--all", action="store_true", help="walk through every case, not only pending ones"
    )
    parser.add_argument(
        "--chunks",
        default=None,
        metavar="FILE",
        help="the chunks file of `rag-gate synth --chunks-out`: an edit may then name any "
        "of its chunk ids",
    )
    return parser


def run(argv: Sequence[str]) -> int:
    """Run ``rag-gate synth`` (or ``rag-gate synth review``) with ``argv``; the exit status."""
    arguments = list(argv)
    if arguments[:1] == ["review"]:

        def review() -> int:
            options = build_review_parser().parse_args(arguments[1:])
            return review_file(
                Path(options.file),
                sys.stdin,
                sys.stdout,
                every=options.all,
                chunks=Path(options.chunks) if options.chunks else None,
            )

        return run_guarded("rag-gate synth review", review)
    return run_guarded("rag-gate synth", lambda: _synth(build_synth_parser().parse_args(arguments)))


def _judge(
    options: argparse.Namespace, corpus: Sequence[str], titles: Sequence[str] = ()
) -> tuple[MeteredJudge, str]:
    """The metered judge and a line saying which it is and why."""
    from ..scoring.judge_factory import create_judge

    cli = {
        "judge": options.judge,
        "model": options.model,
        "cache": options.cache,
        "cache_dir": options.cache_dir,
        "concurrency": options.concurrency,
        "max_cost": options.max_cost,
        "max_calls": options.max_calls,
    }
    loaded = load_config(
        rootdir=Path.cwd(),
        cli={key: value for key, value in cli.items() if value is not None},
        env=os.environ,
        config_path=options.config,
    )
    for warning in loaded.warnings:
        print(f"rag-gate synth: deprecated: {warning}", file=sys.stderr)
    config = loaded.config
    chosen_by = (
        f"--judge {options.judge}" if options.judge else f"judge {config.judge} ({loaded.source})"
    )
    judge, info = create_judge(config, rootdir=Path.cwd(), env=os.environ, chosen_by=chosen_by)
    if info.kind == "offline":
        # The gate's offline judge scores answers; writing questions is this package's own.
        judge = MeteredJudge(
            OfflineSynthJudge(corpus, titles), max_calls=config.max_calls, max_cost=config.max_cost
        )
        return judge, f"judge offline ({judge.model}) — {info.selected_by}"
    return judge, f"judge {info.kind} ({info.model}) — {info.selected_by}"


def _progress(stream: TextIO) -> object:
    if not stream.isatty():
        return None

    def show(done: int, total: int, round_number: int) -> None:
        end = "\n" if done == total else ""
        stream.write(f"\rrag-gate synth: round {round_number}: {done}/{total} requests{end}")
        stream.flush()

    return show


def _synth(options: argparse.Namespace) -> int:
    started = time.monotonic()
    mix = parse_kinds(options.kinds, options.mix)
    targets = kind_counts(options.n, mix)
    documents = read_documents(options.paths)
    where = ", ".join(options.paths)
    for document in documents:
        if document.image_only:
            print(
                f"rag-gate synth: warning: {document.key} has no text layer (an image-only, "
                "scanned PDF?): skipped; run OCR on it first (e.g. ocrmypdf) to use it.",
                file=sys.stderr,
            )
    if not documents:
        raise UsageError(
            f"no documents with text under {where} (looked for .md, .rst, .txt, .html, .pdf "
            "and .jsonl files)."
        )
    chunks = chunk_documents(documents, target_tokens=options.chunk_tokens)
    if not chunks:
        if all(document.image_only for document in documents):
            raise UsageError(
                f"no text under {where}: every PDF is image-only (no text layer); run OCR "
                "on them first."
            )
        raise UsageError(
            f"no prose under {where} to write questions from: it is all "
            + _skipped_text(documents)
            + " (licences, changelogs, code, tables and navigation are left out)."
        )
    output = Path(options.output)
    previous = read_rows(output) if output.is_file() else []
    carried = carry_reviewed(previous, chunks)
    if carried.lost and not options.force:
        raise UsageError(
            f"{output} holds {len(carried.lost)} reviewed case(s) whose chunks are gone from "
            f"the documents ({', '.join(carried.lost[:5])}"
            + (" …" if len(carried.lost) > 5 else "")
            + "); write to another file with -o, or pass --force to drop them."
        )
    # Accepted cases (and cases back to pending) already fill their kind's share of --n;
    # rejected ones do not, so new cases replace them.
    needed = {
        kind: max(
            0,
            count - carried.count(kind, "accepted") - carried.count(kind, "pending"),
        )
        for kind, count in targets.items()
    }
    known = [
        (kind_of(row), str(row.get("question", "")), str(row.get("reference", "")))
        for row in [*carried.rows, *carried.stale]
    ]
    judge, judge_line = _judge(
        options, [chunk.text for chunk in chunks], [chunk.title for chunk in chunks]
    )
    progress = _progress(sys.stderr)
    offline = isinstance(judge.inner, OfflineSynthJudge)
    offer = None
    if offline:
        offer = corpus_offer(chunks, [kind for kind, count in targets.items() if count])
    written_as_single = _unsupported_as_single(needed, offer)
    asked = dict(needed)
    asked["single"] = asked.get("single", 0) + sum(written_as_single.values())

    async def generate() -> SynthOutcome:
        try:
            return await synthesize(
                chunks,
                asked,
                judge,
                known=known,
                per_request=options.per_request,
                concurrency=judge_concurrency(judge),
                on_progress=progress,  # type: ignore[arg-type]
                pair_reasoning=offline,
                linked=linked_chunk_pairs(chunks) if offline and needed.get("multi") else (),
                compared=compared_chunks(chunks) if offline and needed.get("reasoning") else (),
                fruitful=fruitful_chunks(chunks) if offline else frozenset(),
            )
        finally:
            await judge.aclose()

    outcome = asyncio.run(generate()) if any(needed.values()) else SynthOutcome(targets=needed)
    outcome.targets = dict(needed)  # the summary measures each kind against what was asked
    new_ids = {row["id"] for row in (carried.rows + carried.stale)}
    rows = [row for row in case_rows(outcome.kept, chunks) if row["id"] not in new_ids]
    rows = _in_document_order([*carried.rows, *carried.stale, *rows], chunks)
    if rows:
        write_jsonl(output, rows)
    if options.chunks_out:
        write_jsonl(Path(options.chunks_out), chunk_rows(chunks))
    if options.dropped:
        write_jsonl(Path(options.dropped), (drop.as_json() for drop in outcome.dropped))
    lines = summary_lines(
        outcome,
        offer=offer,
        written_as_single=written_as_single,
        output=output if rows else None,
        documents=len(documents),
        skipped=skipped_lines(documents),
        chunks=len(chunks),
        judge=judge,
        judge_line=judge_line,
        carried=carried,
        wall_s=time.monotonic() - started,
        written=len(rows),
    )
    print("\n".join(lines))
    if not rows or outcome.stopped:
        return EXIT_FAILED
    return EXIT_PASSED


def _unsupported_as_single(
    needed: dict[QuestionKind, int], offer: CorpusOffer | None
) -> dict[QuestionKind, int]:
    """Per kind the documents offer none of, how many of its cases to write as single.

    Asking for 30 cases and getting 15 because the corpus holds no comparison is not what a
    reader wants: the share of a kind the documents cannot support goes to single, as far
    as the documents offer further facts. Only when single was asked for at all.
    """
    if offer is None or not needed.get("single"):
        return {}
    room = max(0, offer.facts - needed["single"])
    moved: dict[QuestionKind, int] = {}
    for kind in KINDS:
        count = needed.get(kind, 0)
        if kind == "single" or not count or offer.counts.get(kind, 0) or not room:
            continue
        moved[kind] = min(count, room)
        room -= moved[kind]
    return moved


def _in_document_order(rows: list[dict[str, Any]], chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    position = {chunk.id: index for index, chunk in enumerate(chunks)}
    documents = {chunk.document: index for index, chunk in enumerate(reversed(chunks))}

    def key(row: dict[str, Any]) -> tuple[int, int, str]:
        ids = row.get("relevant_context_ids") or []
        if ids:
            return position.get(str(ids[0]), len(position)), KINDS.index(kind_of(row)), row["id"]
        tags = [str(tag) for tag in row.get("tags") or []]
        first = next((len(chunks) - 1 - documents[tag] for tag in tags if tag in documents), 0)
        return first, KINDS.index(kind_of(row)), str(row.get("id"))

    return sorted(rows, key=key)


def _skipped_text(documents: Sequence[Document]) -> str:
    totals: dict[str, int] = {}
    for document in documents:
        for kind, count in document.skipped.items():
            totals[kind] = totals.get(kind, 0) + count
    return ", ".join(f"{kind} {totals[kind]}" for kind in NON_PROSE if kind in totals) or "empty"


#: Documents the summary names one by one; the rest are counted.
_SKIPPED_SHOWN = 8


def skipped_lines(documents: Sequence[Document]) -> list[str]:
    """The non-prose blocks left out, per document, and image-only PDFs."""
    parts = []
    for document in documents:
        counts = document.skipped
        if document.image_only:
            parts.append(f"{document.key} (image-only PDF, no text)")
        elif counts:
            parts.append(
                f"{document.key} ("
                + ", ".join(f"{kind} {counts[kind]}" for kind in NON_PROSE if kind in counts)
                + ")"
            )
    if not parts:
        return []
    shown = "; ".join(parts[:_SKIPPED_SHOWN])
    if len(parts) > _SKIPPED_SHOWN:
        shown += f"; and {len(parts) - _SKIPPED_SHOWN} more documents"
    return [f"  left out as non-prose ({_skipped_text(documents)} blocks): {shown}"]


def judge_concurrency(judge: MeteredJudge) -> int:
    """How many write requests to keep in flight: the judge's own limit, or 32."""
    return judge.concurrency or 32


def _why_short(outcome: SynthOutcome, kind: QuestionKind, kept: int, target: int) -> str:
    """Why a judge's kind is short: what it wrote of the kind, and what was dropped."""
    drops = [drop for drop in outcome.dropped if drop.kind == kind and drop.stage != "surplus"]
    written = kept + len(drops)
    if not written:
        return (
            f"{kind} {kept}/{target}: could not — the judge wrote none; the documents seem to "
            "hold no passage for it"
        )
    reasons: dict[str, int] = {}
    for drop in drops:
        reasons[drop.reason] = reasons.get(drop.reason, 0) + 1
    shown = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
    return f"{kind} {kept}/{target}: {written} written, {len(drops)} dropped ({shown})"


def summary_lines(
    outcome: SynthOutcome,
    *,
    output: Path | None,
    documents: int,
    chunks: int,
    judge: MeteredJudge,
    judge_line: str,
    carried: Carried,
    wall_s: float,
    skipped: Sequence[str] = (),
    written: int | None = None,
    offer: CorpusOffer | None = None,
    written_as_single: Mapping[QuestionKind, int] | None = None,
) -> list[str]:
    """What the run made, what it dropped and why, and what it cost."""
    counts = outcome.counts()
    kept = len(outcome.kept)
    mix = ", ".join(f"{kind} {counts[kind]}/{outcome.targets.get(kind, 0)}" for kind in KINDS)
    covered = len({kept_case.documents[0] for kept_case in outcome.kept})
    lines = []
    if output is None:
        lines.append("rag-gate synth: no case could be generated; nothing written.")
    elif carried.rows or carried.stale:
        lines.append(
            f"rag-gate synth: {written} cases written to {output}: {kept} new ({mix}), "
            "review: pending"
        )
    else:
        lines.append(f"rag-gate synth: {kept} cases written to {output} ({mix}), review: pending")
    lines.append(
        f"  from {documents} documents, {chunks} chunks; {covered} of {documents} documents "
        f"have cases; {outcome.rounds} round(s), {outcome.generated} questions written"
    )
    dropped_by_document: dict[str, Counter[str]] = {}
    for drop in outcome.dropped:
        if drop.documents and drop.stage != "surplus":
            dropped_by_document.setdefault(drop.documents[0], Counter())[drop.stage] += 1
    if offer is not None and (
        uncovered := offer.uncovered_line(
            {kept_case.documents[0] for kept_case in outcome.kept}, dropped_by_document
        )
    ):
        lines.append(uncovered)
    lines.extend(skipped)
    dropped = [
        f"{stage.replace('_', '-')} {sum(reasons.values())}"
        + (
            " (" + ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items())) + ")"
            if stage in ("critic", "invalid", "failed")
            else ""
        )
        for stage in ("critic", "near_duplicate", "invalid", "surplus", "failed")
        if (reasons := outcome.dropped_by(stage))
    ]
    if dropped:
        # The offline writer runs the critic's checks before it writes, so a low drop
        # share means the misreadings were refused earlier, not that nobody looked.
        unsure = offer.refused.total() if offer is not None else 0
        earlier = (
            f"; the writer refused {unsure} more on the same checks before writing (below)"
            if unsure
            else ""
        )
        lines.append(
            f"  dropped {len(outcome.dropped)}: "
            + "; ".join(dropped)
            + f" — the critic dropped {outcome.critic_drop_share:.0%} of those it reviewed"
            + earlier
        )
    if offer is not None:
        lines.append(offer.line())
        if (refused := offer.refused_line()) is not None:
            lines.append(refused)
    short = [kind for kind in KINDS if counts[kind] < outcome.targets.get(kind, 0)]
    for kind in short:
        target = outcome.targets.get(kind, 0)
        if offer is not None:
            lines.append("  short: " + offer.why_short(kind, counts[kind], target))
        else:
            lines.append("  short: " + _why_short(outcome, kind, counts[kind], target))
    if written_as_single:
        moved = ", ".join(f"{count} of {kind}" for kind, count in written_as_single.items())
        lines.append(
            f"  single {counts['single']}/{outcome.targets.get('single', 0)}: the {moved} the "
            "documents cannot support are written as single"
        )
    if short:
        lines.append(
            "  the other kinds are written in full; for more of the short ones add documents "
            "that state such facts, or use an LLM judge"
        )
    if carried.rows:
        accepted = sum(1 for row in carried.rows if row.get("review") == "accepted")
        moved = f", {carried.moved} with new chunk ids" if carried.moved else ""
        lines.append(
            f"  kept {len(carried.rows)} reviewed case(s) of the previous file ({accepted} "
            f"accepted, {len(carried.rows) - accepted} rejected{moved}); only the missing "
            "ones were generated"
        )
    if carried.stale:
        lines.append(
            f"  {len(carried.stale)} reviewed case(s) are pending again: their chunks changed "
            "since they were reviewed"
        )
    if carried.lost:
        lines.append(
            f"  dropped {len(carried.lost)} reviewed case(s) whose chunks are gone (--force)"
        )
    per_case = "no kept case"
    if kept:
        per_case = (
            f"{judge.calls / kept:.2f} calls and {judge.input_tokens / kept:,.0f} prompt "
            "tokens per kept case"
        )
    lines.append(
        f"  {judge_line}: {judge.calls} calls ({outcome.write_requests} write, "
        f"{outcome.critique_requests} critique requests), {per_case}; "
        f"{judge.input_tokens:,} input / {judge.output_tokens:,} output tokens, "
        f"${judge.cost_usd:.4f}, {judge.cache_hits} cache hits, {judge.retries} retries; "
        f"{wall_s:.1f}s"
    )
    if outcome.stopped:
        lines.append(f"  stopped: {outcome.stopped}")
    if output is not None:
        lines.append(f"  next: rag-gate synth review {output}")
    return lines
