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
from pathlib import Path
from typing import Any

from ..atomic_files import write_lines_atomic
from ..command_line import EXIT_PASSED
from ..exceptions import CommandError
from ..golden.cases import stable_case_id
from .datasets import read_langfuse, read_langsmith
from .deepeval import read_deepeval
from .openinference import read_openinference
from .promptfoo import read_promptfoo
from .records import Imported, Malformed, Outcome, Skipped

__all__ = ["FORMATS", "register_command"]

Reader = Callable[[Path, argparse.Namespace], Iterator[Outcome]]

#: Format name → reader of one source file.
FORMATS: dict[str, Reader] = {
    "deepeval": lambda path, arguments: read_deepeval(path, arguments.list_delimiter),
    "promptfoo": lambda path, arguments: read_promptfoo(path),
    "langsmith": lambda path, arguments: read_langsmith(path),
    "langfuse": lambda path, arguments: read_langfuse(path),
    "openinference": lambda path, arguments: read_openinference(path),
}


def register_command(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``import`` to the ``rag-gate`` parser, with its ``handler``."""
    command = commands.add_parser(
        "import",
        help="write a golden JSONL file from another tool's dataset, results or traces",
        description="Read DeepEval, promptfoo, LangSmith, Langfuse or OpenInference "
        "(Phoenix) files and write golden cases as JSON Lines. Ids are stable across "
        "re-imports and each case records where it came from under metadata.import.",
    )
    command.add_argument(
        "format",
        choices=sorted(FORMATS),
        metavar="FORMAT",
        help=f"one of: {', '.join(sorted(FORMATS))}",
    )
    command.add_argument("sources", nargs="+", metavar="SOURCE", help="files to read")
    command.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="the golden JSONL file to write"
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
    command.set_defaults(handler=_import)


def _import(arguments: argparse.Namespace) -> int:
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
    reader = FORMATS[arguments.format]
    imported: list[Imported] = []
    skipped: list[Skipped] = []
    malformed: list[Malformed] = []
    for source in sources:
        for outcome in reader(source, arguments):
            if isinstance(outcome, Imported):
                imported.append(outcome)
            elif isinstance(outcome, Skipped):
                skipped.append(outcome)
            else:
                malformed.append(outcome)
    if malformed and not arguments.skip_invalid:
        listing = "; ".join(str(record) for record in malformed)
        raise CommandError(
            f"{len(malformed)} malformed record(s), nothing written: {listing}. Fix them, "
            "or pass --skip-invalid to import the rest."
        )
    if not imported:
        raise CommandError(
            f"No case found in {len(sources)} {arguments.format} file(s), nothing written"
            + (f" ({_reasons(skipped, malformed)})." if skipped or malformed else ".")
        )
    rows = _rows(imported, arguments.format)
    try:
        write_lines_atomic(output, (_line(row) for row in rows))
    except OSError as error:
        raise CommandError(f"Cannot write {output}: {error.strerror or error}.") from None
    read = len(imported) + len(skipped) + len(malformed)
    print(
        f"rag-gate import {arguments.format}: read {read} record(s) from {len(sources)} "
        f"file(s); wrote {len(rows)} case(s) to {output}"
        + (f"; skipped {len(skipped) + len(malformed)}:" if skipped or malformed else ".")
    )
    for record in malformed:
        print(f"  {record}")
    for skip in skipped:
        print(f"  {skip.place}: {skip.reason}")
    return EXIT_PASSED


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


def _reasons(skipped: list[Skipped], malformed: list[Malformed]) -> str:
    counts = Counter(skip.reason for skip in skipped)
    counts.update("malformed" for _ in malformed)
    return ", ".join(f"{count} {reason}" for reason, count in counts.most_common())


def _rows(imported: list[Imported], format_name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    for case in imported:
        # A conversation is named after its first user turn, as the golden loader does.
        asked = case.fields.get("question") or case.fields["turns"][0]["content"]
        base = case.source_id or _question_id(str(asked))
        seen[base] += 1
        case_id = base if seen[base] == 1 else f"{base}-{seen[base]}"
        metadata = {**case.metadata, "import": case.place.provenance(format_name)}
        rows.append({"id": case_id, **case.fields, "metadata": metadata})
    return rows
