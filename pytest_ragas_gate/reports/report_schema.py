"""The JSON Schema of the JSON report, built from the models the report is dumped from.

The schema ships in the package as ``reports/schema/report.schema.json`` (a tool reading
the report validates against it without this package); this module builds it, so the
shipped file and the report cannot drift apart: a test compares the two, and
``python -m pytest_ragas_gate.reports.report_schema`` writes the file again after a
model changes. Each part of the report that is a model's dump (the config, a case, a
metric's aggregate, a check …) takes that model's own JSON Schema (pydantic, serialization
mode); the top level, which :func:`~.json_report.build_report` assembles, is written here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..gate.aggregates import MetricAggregate, TagVerdict
from ..gate.baseline_figures import BaselineComparison
from ..gate.case_verdicts import CaseVerdict
from ..gate.checks import GateCheck
from ..gate.diagnosis import Diagnosis, DiagnosisSummary
from ..gate.ignored_top import IgnoredTopRanked
from ..gate.metric_outcome import MetricOutcome
from ..gate.pairwise_summary import PairwiseSummary
from ..gate.run_facts import RunFacts
from ..judges.base import JudgeInfo
from ..live.latency import LatencyVerdict
from ..live.oracle_gap_figures import OracleGap
from ..scoring.results import CaseResult
from ..settings.config import GateConfig
from ..trust.figures import MetricAgreement
from ..usage import Usage
from .json_report import SCHEMA_VERSION

__all__ = ["SCHEMA_ID", "SCHEMA_PATH", "generator", "report_schema", "schema_text"]

#: Where the schema ships, inside the package.
SCHEMA_PATH = Path(__file__).parent / "schema" / "report.schema.json"

#: The schema's ``$id``: names the report version it describes.
SCHEMA_ID = f"https://pytest-ragas-gate.dev/schema/report-v{SCHEMA_VERSION}.schema.json"

_DEFS: dict[str, Any] = {}


def _model(
    model: type[BaseModel],
    *,
    without: frozenset[str] = frozenset(),
    extra: dict[str, Any] | None = None,
    extra_required: tuple[str, ...] = (),
    name: str | None = None,
) -> dict[str, Any]:
    """A reference to ``model``'s serialization schema as the report writes it.

    ``without`` are fields the report leaves out of the dump; ``extra`` (``extra_required``)
    the keys it adds beside them, which a model that forbids extra keys must list.
    """
    schema = model.model_json_schema(mode="serialization", ref_template="#/$defs/{model}")
    _DEFS.update(schema.pop("$defs", {}))
    properties = {key: value for key, value in schema["properties"].items() if key not in without}
    properties.update(extra or {})
    schema["properties"] = properties
    required = [key for key in schema.get("required", []) if key not in without]
    required += [key for key in extra_required if key not in required]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    if name is None:
        name = model.__name__ + ("_without_" + "_".join(sorted(without)) if without else "")
    _DEFS[name] = schema
    return {"$ref": f"#/$defs/{name}"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}}


def _case() -> dict[str, Any]:
    """A case: the result's dump, with what the report derives beside it."""
    _model(CaseVerdict)
    verdict_fields = ("status", "misses", "own_misses", "newly_failing", "newly_passing")
    return _model(
        CaseResult,
        extra={
            "diagnosis": _nullable(_model(Diagnosis)),
            # The case verdict's status, misses and changes against the baseline.
            "verdict": {
                "type": "object",
                "properties": {
                    field: {"$ref": f"#/$defs/CaseVerdict/properties/{field}"}
                    for field in verdict_fields
                },
                "required": ["status"],
                "additionalProperties": False,
            },
            "retrieval_hops": {"type": "array", "items": {"type": "object"}},
        },
        extra_required=("diagnosis", "verdict"),
        name="ReportCase",
    )


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a report of :data:`SCHEMA_VERSION`."""
    _DEFS.clear()
    metric = _model(
        MetricAggregate,
        without=frozenset({"metric"}),
        extra={"outcome": _model(MetricOutcome, without=frozenset({"metric"}))},
        name="ReportMetric",
    )
    properties: dict[str, Any] = {
        "schema_version": {"const": SCHEMA_VERSION},
        "verdict": {"enum": ["passed", "failed", "error", "partial", "ungated"]},
        "generated_at": {"type": "string", "format": "date-time"},
        "incomplete": {"type": "boolean"},
        "partial": {"type": "boolean"},
        "coverage": {"type": "string"},
        "run": _model(
            RunFacts,
            without=frozenset({"baseline"}),
            extra={
                "gated_cases": {"type": "integer", "minimum": 0},
                "collected_cases": _nullable({"type": "integer", "minimum": 0}),
                "below_own_thresholds": _strings(),
                "commit": _nullable({"type": "string"}),
                "run_url": _nullable({"type": "string"}),
            },
            extra_required=("gated_cases", "collected_cases", "below_own_thresholds"),
            name="ReportRun",
        ),
        "judge": _model(JudgeInfo),
        "config": _model(GateConfig),
        "metrics": {"type": "object", "additionalProperties": metric},
        "tags": {"type": "array", "items": _model(TagVerdict)},
        "error_rate": {
            "type": "object",
            "required": ["total_cases", "errored_cases", "error_rate", "max_error_rate", "passed"],
            "properties": {
                "total_cases": {"type": "integer", "minimum": 0},
                "errored_cases": {"type": "integer", "minimum": 0},
                "error_rate": {"type": "number", "minimum": 0, "maximum": 1},
                "max_error_rate": {"type": "number", "minimum": 0, "maximum": 1},
                "passed": {"type": "boolean"},
                "message": _nullable({"type": "string"}),
            },
        },
        "failures": _strings(),
        "checks": {"type": "array", "items": _model(GateCheck)},
        "failing_metrics": _strings(),
        "recommendation": {"type": "string"},
        "deploy_decision": {"type": "boolean"},
        "hints": {"type": "object", "additionalProperties": {"type": "string"}},
        "latency": _nullable(_model(LatencyVerdict)),
        "alignment": _nullable(_model(IgnoredTopRanked)),
        "usage": _model(
            Usage,
            extra={"by_metric": {"type": "object", "additionalProperties": _model(Usage)}},
            name="ReportUsage",
        ),
        "timing": {
            "type": "object",
            "required": ["wall_s", "scoring_s"],
            "properties": {
                "wall_s": {"type": "number", "minimum": 0},
                "scoring_s": {"type": "number", "minimum": 0},
            },
        },
        "shard": _nullable(
            {
                "type": "object",
                "required": ["index", "count"],
                "properties": {
                    "index": {"type": "integer", "minimum": 1},
                    "count": {"type": "integer", "minimum": 1},
                },
            }
        ),
        "baseline": _nullable(_model(BaselineComparison)),
        "pairwise": _nullable(_model(PairwiseSummary)),
        "diagnosis": _nullable(_model(DiagnosisSummary)),
        "oracle_gaps": {"type": "array", "items": _model(OracleGap)},
        "not_evaluated": _strings(),
        "conversations": _nullable({"type": "string"}),
        "agreement": {
            "type": "object",
            "additionalProperties": _model(MetricAgreement, without=frozenset({"metric"})),
        },
        "cases": {"type": "array", "items": _case()},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"pytest-ragas-gate JSON report, schema_version {SCHEMA_VERSION}",
        # Another pydantic may word the same models' schema differently: the equality
        # test of the shipped file runs under the release that wrote it.
        "$comment": f"Built from the report's models with pydantic {generator()}.",
        "description": (
            "The report --rag-gate-output json=PATH writes and rag-gate gate, merge and "
            "compare read. Keys may be added within a schema_version; a change an older "
            "reader would misread bumps it."
        ),
        "type": "object",
        "required": sorted(properties),
        "properties": properties,
        "$defs": dict(sorted(_DEFS.items())),
    }


def generator() -> str:
    """The pydantic release (major.minor) whose JSON Schema of the models the file holds."""
    import pydantic

    return ".".join(pydantic.VERSION.split(".")[:2])


def schema_text() -> str:
    """The schema as the shipped file holds it."""
    return json.dumps(report_schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


if __name__ == "__main__":  # pragma: no cover
    SCHEMA_PATH.parent.mkdir(exist_ok=True)
    SCHEMA_PATH.write_text(schema_text(), encoding="utf-8")
    sys.stdout.write(f"wrote {SCHEMA_PATH}\n")
