#!/usr/bin/env bash
# The comment step of action.yml: create or update the gate's sticky pull-request comment.
#
# Inputs arrive through the environment (INPUT_*, REPORT_PATH, GITHUB_TOKEN), never
# interpolated into this script. Posting is best effort: no report, a read-only token
# (pull requests from forks) or an API error is a ::warning:: annotation and exit 0, so
# the gate step alone decides whether the job fails.
set -uo pipefail

comment=${INPUT_COMMENT:-auto}
case "$comment" in
auto | true | false) ;;
*)
  echo "::error title=RAG gate::Input 'comment' is '$comment'; expected one of: auto, true, false."
  exit 4
  ;;
esac
[ "$comment" = false ] && exit 0

if [ -z "${REPORT_PATH:-}" ] || [ ! -f "$REPORT_PATH" ]; then
  echo "rag-gate comment: the gate step wrote no report: no comment"
  exit 0
fi

args=("$REPORT_PATH" --comment "$comment")
if [ -n "${INPUT_BASELINE:-}" ]; then
  # The baseline input is relative to the working directory, like the gate's own paths.
  case "$INPUT_BASELINE" in
  /*) baseline=$INPUT_BASELINE ;;
  *) baseline="${INPUT_WORKING_DIRECTORY:-.}/$INPUT_BASELINE" ;;
  esac
  args+=(--baseline "$baseline")
fi

python=${RAG_GATE_PYTHON:-python}
"$python" -m pytest_ragas_gate.cli comment "${args[@]}" ||
  echo "::warning title=RAG gate comment::The comment step failed (exit $?); see the log above."
exit 0
