#!/usr/bin/env bash
# The gate step of action.yml, kept in a file so that it can be tested as a runner runs it.
#
# Every input arrives through the environment (INPUT_*), set by the step's `env:` block.
# Nothing is ever interpolated into this script's text, so an input such as a branch name
# or a pull request title cannot inject shell code. Inputs are validated up front: a bad
# one is a usage error (exit 4, like pytest's) with an ::error annotation naming it.
set -uo pipefail

JUDGES="auto anthropic openai offline"
CACHE_MODES="readwrite read off"

output() {
  # name, value: one step output. The heredoc form keeps any character of the value.
  local delimiter="rag_gate_$RANDOM$RANDOM$RANDOM"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
  fi
}

escape() {
  # Workflow-command message escaping: %, CR and LF.
  local text=${1//%/%25}
  text=${text//$'\r'/%0D}
  printf '%s' "${text//$'\n'/%0A}"
}

summary_append() {
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    printf '%s\n' "$1" >>"$GITHUB_STEP_SUMMARY"
  fi
}

usage_error() {
  echo "::error title=RAG gate::$(escape "$1")"
  output verdict error
  output report-path ""
  output junit-path ""
  output summary "RAG gate: not run: $1"
  summary_append "## ⚠️ RAG gate: not run"$'\n\n'"$1"
  exit 4
}

one_of() {
  # value, allowed words
  local word
  for word in $2; do
    [ "$1" = "$word" ] && return 0
  done
  return 1
}

judge=${INPUT_JUDGE:-auto}
one_of "$judge" "$JUDGES" ||
  usage_error "Input 'judge' is '$judge'; expected one of: ${JUDGES// /, }."

cache=${INPUT_CACHE:-readwrite}
one_of "$cache" "$CACHE_MODES" ||
  usage_error "Input 'cache' is '$cache'; expected one of: ${CACHE_MODES// /, }."

report=${INPUT_REPORT_PATH:-rag-gate-report.json}
junit=${INPUT_JUNIT_PATH:-rag-gate-junit.xml}
workdir=${INPUT_WORKING_DIRECTORY:-.}
[ -d "$workdir" ] || usage_error "Input 'working-directory' is '$workdir', which is not a directory."
cd "$workdir" || usage_error "Cannot enter the working directory '$workdir'."

args=(-m pytest --rag-gate -p no:cacheprovider
  --rag-gate-judge "$judge" --rag-gate-cache "$cache"
  --rag-gate-report "$report" --rag-gate-junit "$junit")

if [ -n "${INPUT_CONFIG:-}" ]; then
  [ -f "$INPUT_CONFIG" ] || usage_error "Input 'config' is '$INPUT_CONFIG', which does not exist."
  args+=(--rag-gate-config "$INPUT_CONFIG")
fi
if [ -n "${INPUT_MODEL:-}" ]; then
  args+=(--rag-gate-model "$INPUT_MODEL")
fi
if [ -n "${INPUT_BASELINE:-}" ]; then
  [ -f "$INPUT_BASELINE" ] ||
    usage_error "Input 'baseline' is '$INPUT_BASELINE', which does not exist."
  args+=(--rag-gate-baseline "$INPUT_BASELINE")
fi
if [ -n "${INPUT_SHARD:-}" ]; then
  [[ "$INPUT_SHARD" =~ ^[1-9][0-9]*/[1-9][0-9]*$ ]] ||
    usage_error "Input 'shard' is '$INPUT_SHARD'; expected K/N such as 1/4."
  args+=(--rag-gate-shard "$INPUT_SHARD")
fi

# Thresholds: METRIC=VALUE entries separated by newlines or commas.
threshold_pattern='^[A-Za-z_][A-Za-z0-9_.-]*=(0|1|0?\.[0-9]+|1\.0*|0\.)$'
while IFS= read -r entry; do
  entry=${entry#"${entry%%[![:space:]]*}"}
  entry=${entry%"${entry##*[![:space:]]}"}
  [ -z "$entry" ] && continue
  entry=${entry// /}
  [[ "$entry" =~ $threshold_pattern ]] ||
    usage_error "Input 'thresholds' has '$entry'; expected METRIC=VALUE with VALUE from 0 to 1, e.g. faithfulness=0.85."
  args+=(--rag-gate-threshold "$entry")
done <<<"${INPUT_THRESHOLDS//,/$'\n'}"

# Extra pytest arguments: split on whitespace only, never evaluated, so no quoting or
# globbing: a value holding `$(...)` reaches pytest as that literal text.
read -r -a extra <<<"${INPUT_EXTRA_ARGS//$'\n'/ }"
args+=(${extra[@]+"${extra[@]}"})

read -r -a paths <<<"${INPUT_PATHS//$'\n'/ }"
if [ "${#paths[@]}" -eq 0 ]; then
  paths=(.)
fi
args+=(--)
args+=("${paths[@]}")

# A stale report from an earlier step must never be read as this run's result.
rm -f -- "$report" "$junit"

python=${RAG_GATE_PYTHON:-python}
echo "rag-gate: $python ${args[*]}"
"$python" "${args[@]}"
status=$?

prefix=""
if [ "$workdir" != "." ]; then
  prefix="${workdir%/}/"
fi
case "$report" in /*) report_out=$report ;; *) report_out=$prefix$report ;; esac
case "$junit" in /*) junit_out=$junit ;; *) junit_out=$prefix$junit ;; esac

if [ -f "$report" ] && { [ "$status" -eq 0 ] || [ "$status" -eq 1 ]; }; then
  summary=$("$python" - "$report" <<'PY'
import json
import sys

with open(sys.argv[1], encoding="utf-8") as handle:
    report = json.load(handle)
judge = report.get("judge", {})
verdict = "PASSED" if report.get("verdict") == "passed" else "FAILED"
line = (
    f"RAG gate {verdict}: {report.get('recommendation', '')} "
    f"(judge {judge.get('kind', '?')}, {len(report.get('cases', []))} cases)"
)
print(" ".join(line.split()))
PY
  )
  verdict=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["verdict"])' "$report")
  output verdict "$verdict"
  output report-path "$report_out"
else
  # pytest's own usage errors, interrupts and crashes: whatever a report says, the run
  # did not gate the golden set it was asked to.
  verdict=error
  summary="RAG gate: no verdict (pytest exited $status; see the log)"
  echo "::error title=RAG gate::$(escape "$summary")"
  summary_append "## ⚠️ RAG gate: no verdict"$'\n\n'"pytest exited with status $status; see the job log."
  output verdict error
  output report-path ""
fi
if [ -f "$junit" ]; then
  output junit-path "$junit_out"
else
  output junit-path ""
fi
output summary "$summary"
output exit-code "$status"
echo "$summary"
exit "$status"
