"""``rag-gate import FORMAT SOURCE… -o golden.jsonl``: golden cases from other tools' files.

Every case gets an id that survives a re-import (the source's own id, else ``q-<hash>``
of the question, as the golden loader derives it; a repeat gets ``-2``, ``-3`` … in file
order) and its provenance under ``metadata.import`` (format, file, line/row/item/trace).
Records that are not cases are skipped with their reason. A malformed record (a field of
the wrong type, no question) refuses the whole import, naming every such record, unless
``--skip-invalid`` is given: then the others are written and it is listed as skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic_files import write_lines_atomic
from ..command_line import EXIT_PASSED
from ..exceptions import CommandError
from ..golden.cases import stable_case_id
from ..golden.conversations import derived_conversation_id
from .datasets import read_langfuse, read_langsmith
from .deepeval import read_deepeval
from .mapped import parse_mapping, read_mapped
from .openinference import read_openinference
from .otlp import read_otlp
from .paths import parse_path
from .promptfoo import read_promptfoo
from .promptfoo_config_command import import_config
from .records import Imported, Malformed, Notice, Outcome, Skipped
from .selection import CaseFilter, Sampler, parse_time, parse_where

__all__ = ["FORMATS", "register_command"]

Reader = Callable[[Path, argparse.Namespace], Iterator[Outcome]]

#: A promptfoo config becomes a golden set and a gate config (promptfoo_config_command).
CONFIG_FORMAT = "promptfoo-config"

#: Format name → reader of one source file.
FORMATS: dict[str, Reader] = {
    "deepeval": lambda path, arguments: read_deepeval(path, arguments.list_delimiter),
    "promptfoo": lambda path, arguments: read_promptfoo(path),
    "langsmith": lambda path, arguments: read_langsmith(path),
    "langfuse": lambda path, arguments: read_langfuse(path),
    "openinference": lambda path, arguments: read_openinference(path),
    "otlp": lambda path, arguments: read_otlp(path),
    "json": lambda path, arguments: read_mapped(path, arguments.mapping),
}


def register_command(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``import`` to the ``rag-gate`` parser, with its ``handler``."""
    command = commands.add_parser(
        "import",
        help="write a golden JSONL file from another tool's dataset, results or traces",
        description="Read DeepEval, promptfoo, LangSmith, Langfuse, OpenInference (Phoenix) "
        "or OTLP/JSON files, or any JSON with --map, and write golden cases as JSON Lines; "
        "or turn a promptfooconfig.yaml into a golden set and rag_gate.yaml "
        "(promptfoo-config). "
        "Ids are stable across re-imports and each case records where it came from under "
        "metadata.import. Files are read as streams, so large trace exports fit in memory.",
    )
    command.add_argument(
        "format",
        choices=sorted([*FORMATS, CONFIG_FORMAT]),
        metavar="FORMAT",
        help=f"one of: {', '.join(sorted([*FORMATS, CONFIG_FORMAT]))}",
    )
    command.add_argument("sources", nargs="+", metavar="SOURCE", help="files to read")
    command.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the golden JSONL file to write (promptfoo-config: the directory of the golden set)",
    )
    command.add_argument(
        "--force", action="store_true", help="replace OUT if it exists (default: refuse)"
    )
    command.add_argument(
        "--skip-invalid",
        action="store_true",
        help="write the valid cases and list malformed records as skipped "
        "(default: a malformed record refuses the import, exit 4)",
    )
    command.add_argument(
        "--list-delimiter",
        default="|",
        metavar="SEP",
        help="deepeval CSV: separator of list cells that are not JSON arrays (default: |)",
    )
    command.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="FIELD=PATH",
        help="json: where a golden field (question, answer, contexts, reference, id, tags, "
        "timestamp or metadata.NAME) is in each record, as a dotted path with [N] and [*], "
        "e.g. contexts=retrieval.hits[*].text; promptfoo-config: the var of the question, "
        "contexts or reference, e.g. question=vars.query; repeatable (default: the field's "
        "own name; promptfoo-config: the var the prompt puts the question in)",
    )
    command.add_argument(
        "--results",
        metavar="RESULTS",
        help="promptfoo-config: promptfoo's results of that config (promptfoo eval -o "
        "results.json), whose outputs become the answers, paired by vars (default: none, "
        "a live-mode golden set)",
    )
    command.add_argument(
        "--strict",
        action="store_true",
        help="promptfoo-config: an assert with no counterpart in the gate is a usage error, "
        "exit 4, nothing written (default: listed, and the rest imported)",
    )
    command.add_argument(
        "--config",
        metavar="PATH",
        help="promptfoo-config: where rag_gate.yaml goes (default: the rootdir of pytest "
        "--rag-gate OUT, where the gate reads it)",
    )
    command.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep only cases whose field or metadata KEY (a dotted path) equals VALUE; "
        "repeatable, all must hold (default: keep all)",
    )
    command.add_argument(
        "--since",
        metavar="TIME",
        help="keep only cases timestamped at or after TIME, ISO 8601 or epoch seconds "
        "(default: no limit)",
    )
    command.add_argument(
        "--until",
        metavar="TIME",
        help="keep only cases timestamped before TIME (default: no limit)",
    )
    command.add_argument(
        "--sample",
        type=_positive,
        metavar="N",
        help="write a random sample of N cases, chosen by hash of seed and case id, so a "
        "re-import picks the same ones (default: all)",
    )
    command.add_argument(
        "--seed", type=int, default=0, metavar="S", help="the sample's seed (default: 0)"
    )
    command.add_argument(
        "--stratify",
        metavar="KEY",
        help="share the --sample among the values of the field or metadata KEY, in "
        "proportion to their counts (default: not stratified)",
    )
    command.set_defaults(handler=_import)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of cases, 1 or more, got {text!r}"
        )
    return value


#: How many skipped or malformed records the summary names one by one.
LISTED = 20


@dataclass
class _Tally:
    """What the import read, skipped and wrote, counted as it streams."""

    read: int = 0
    written: int = 0
    offered: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    skipped_count: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    malformed: list[Malformed] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)

    def skip(self, skip: Skipped) -> None:
        self.read += 1
        self.skipped_count += 1
        self.reasons[skip.tally] += 1
        if len(self.skipped) < LISTED:
            self.skipped.append(skip)

    def reason_counts(self) -> str:
        counts = Counter(self.reasons)
        if self.malformed:
            counts["malformed"] = len(self.malformed)
        return ", ".join(f"{count} {reason}" for reason, count in counts.most_common())


def _selection(arguments: argparse.Namespace) -> tuple[CaseFilter, Sampler | None]:
    try:
        where = [parse_where(text) for text in arguments.where]
        since = parse_time(arguments.since) if arguments.since else None
        until = parse_time(arguments.until) if arguments.until else None
        stratify = parse_path(arguments.stratify) if arguments.stratify else None
    except ValueError as error:
        raise CommandError(f"{error}.") from None
    if stratify is not None and arguments.sample is None:
        raise CommandError("--stratify KEY shares a sample: give --sample N too.")
    if since is not None and until is not None and since >= until:
        raise CommandError("--since must be earlier than --until.")
    sampler = None
    if arguments.sample is not None:
        sampler = Sampler(arguments.sample, arguments.seed, stratify)
    return CaseFilter(where, since, until), sampler


def _import(arguments: argparse.Namespace) -> int:
    if arguments.format == CONFIG_FORMAT:
        return import_config(arguments)
    for option in ("results", "config"):
        if getattr(arguments, option):
            raise CommandError(f"--{option} belongs to promptfoo-config imports.")
    if arguments.strict:
        raise CommandError("--strict belongs to promptfoo-config imports.")
    output = Path(arguments.output)
    sources = [Path(source) for source in arguments.sources]
    for source in sources:
        if not source.is_file():
            raise CommandError(f"The source {source} is not a file.")
        if output.exists() and source.resolve() == output.resolve():
            raise CommandError(f"The output {output} is also a source; write elsewhere.")
    if output.is_dir():
        raise CommandError(f"The output {output} is a directory; name a .jsonl file.")
    if output.exists() and not arguments.force:
        raise CommandError(f"The output {output} already exists; pass --force to replace it.")
    if arguments.map and arguments.format != "json":
        raise CommandError(
            f"--map names fields of any JSON shape with the json format; {arguments.format} "
            "files are read by their own layout."
        )
    try:
        arguments.mapping = parse_mapping(arguments.map)
    except ValueError as error:
        raise CommandError(f"{error}.") from None
    case_filter, sampler = _selection(arguments)
    tally = _Tally()
    lines = _lines(FORMATS[arguments.format], sources, arguments, case_filter, sampler, tally)
    try:
        write_lines_atomic(output, lines)
    except OSError as error:
        raise CommandError(f"Cannot write {output}: {error.strerror or error}.") from None
    _summarise(arguments, len(sources), output, tally, sampler)
    return EXIT_PASSED


def _lines(
    reader: Reader,
    sources: list[Path],
    arguments: argparse.Namespace,
    case_filter: CaseFilter,
    sampler: Sampler | None,
    tally: _Tally,
) -> Iterator[str]:
    """The output's lines, read, filtered and written one case at a time.

    Raises:
        CommandError: a record is malformed (without ``--skip-invalid``), or no case is left;
            nothing is written then.
    """
    ids = _Ids(arguments.format)
    for source in sources:
        for outcome in reader(source, arguments):
            if isinstance(outcome, Notice):
                tally.notices.append(outcome)
            elif isinstance(outcome, Skipped):
                tally.skip(outcome)
            elif isinstance(outcome, Malformed):
                tally.read += 1
                tally.malformed.append(outcome)
            else:
                tally.notices += [Notice(f"{outcome.place}: {text}") for text in outcome.warnings]
                row = ids.row(outcome)
                reason = case_filter.rejects(row, outcome.timestamp)
                if reason is not None:
                    tally.skip(Skipped(outcome.place, reason))
                    continue
                tally.read += 1
                if sampler is not None:
                    tally.offered += 1
                    sampler.offer(row)
                elif not (tally.malformed and not arguments.skip_invalid):
                    tally.written += 1
                    yield _line(row)
    if tally.malformed and not arguments.skip_invalid:
        listing = "; ".join(str(record) for record in tally.malformed[:LISTED])
        more = len(tally.malformed) - LISTED
        raise CommandError(
            f"{len(tally.malformed)} malformed record(s), nothing written: {listing}"
            + (f"; and {more} more" if more > 0 else "")
            + ". Fix them, or pass --skip-invalid to import the rest."
        )
    if sampler is not None:
        for row in sampler.chosen():
            tally.written += 1
            yield _line(row)
    if not tally.written:
        found = tally.reason_counts()
        raise CommandError(
            f"No case found in {len(sources)} {arguments.format} file(s), nothing written"
            + (f" ({found})." if found else ".")
        )


def _summarise(
    arguments: argparse.Namespace,
    file_count: int,
    output: Path,
    tally: _Tally,
    sampler: Sampler | None,
) -> None:
    dropped = tally.skipped_count + len(tally.malformed)
    sampled = ""
    if sampler is not None:
        strata = f", stratified by {arguments.stratify}" if arguments.stratify else ""
        sampled = f" (sampled from {tally.offered}, seed {arguments.seed}{strata})"
    print(
        f"rag-gate import {arguments.format}: read {tally.read} record(s) from {file_count} "
        f"file(s); wrote {tally.written} case(s){sampled} to {output}"
        + (f"; skipped {dropped}:" if dropped else ".")
    )
    if dropped > 1 and len(tally.reasons) + bool(tally.malformed) > 1:
        print(f"  by reason: {tally.reason_counts()}")
    for record in tally.malformed[:LISTED]:
        print(f"  {record}")
    for skip in tally.skipped[: max(0, LISTED - len(tally.malformed))]:
        print(f"  {skip.place}: {skip.reason}")
    listed = min(dropped, LISTED)
    if dropped > listed:
        print(f"  … and {dropped - listed} more")
    for notice in tally.notices[:LISTED]:
        print(f"  warning: {notice.text}")
    if len(tally.notices) > LISTED:
        print(f"  … and {len(tally.notices) - LISTED} more warning(s)")


class _Ids:
    """Case ids in file order: the source's id or ``q-<hash>``; repeats get ``-2``, ``-3``."""

    def __init__(self, format_name: str) -> None:
        self.format_name = format_name
        self.seen: Counter[str] = Counter()

    def row(self, case: Imported) -> dict[str, Any]:
        # A conversation is named after all its turns, as the golden loader does.
        base = case.source_id or (
            _question_id(str(case.fields["question"]))
            if "question" in case.fields
            else derived_conversation_id(case.fields["turns"])
        )
        self.seen[base] += 1
        case_id = base if self.seen[base] == 1 else f"{base}-{self.seen[base]}"
        metadata = {**case.metadata, "import": case.place.provenance(self.format_name)}
        return {"id": case_id, **case.fields, "metadata": metadata}


def _question_id(question: str) -> str:
    """The loader's ``q-<hash>``; text it cannot encode is hashed with its surrogates."""
    try:
        return stable_case_id(question)
    except UnicodeEncodeError:
        encoded = question.strip().encode("utf-8", "surrogatepass")
        return "q-" + hashlib.sha256(encoded).hexdigest()[:10]


def _line(row: dict[str, Any]) -> str:
    r"""One JSONL line, readable UTF-8 where possible.

    Text with half a surrogate pair (legal in JSON sources) cannot be UTF-8: that row keeps
    the ``\ud800`` escape, and the golden loader names the field, as for any golden file.
    """
    line = json.dumps(row, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(row)
    return line + "\n"
