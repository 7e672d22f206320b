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
# What `allow:` may name: verdicts besides passed, `offline` (a run scored by the offline
# heuristic) and `thin-evidence` (a pass whose intervals reach past their thresholds),
# neither of which is a deploy decision.
ALLOWABLE="partial ungated offline thin-evidence"

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
  output deploy-decision false
  output report-path ""
  output junit-path ""
  output html-path ""
  output summary "RAG gate: not run: $1"
  output exit-code 4
  summary_append "## ⚠️ RAG gate: not run"$'\n\n'"$1"
  exit 4
}

where() {
  # " in working directory 'X'" when the step does not run in the checkout's root.
  [ "$workdir" = "." ] || printf " in working directory '%s'" "$workdir"
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

# Verdicts besides `passed` that leave the step green (`allow: partial,ungated`), and
# `offline` for a run the offline heuristic scored; commas or spaces separate them.
allowed=" "
allow_input=${INPUT_ALLOW:-}
for word in ${allow_input//,/ }; do
  one_of "$word" "$ALLOWABLE" ||
    usage_error "Input 'allow' has '$word'; expected any of: ${ALLOWABLE// /, } (separated by commas or spaces)."
  allowed+="$word "
done

report=${INPUT_REPORT_PATH:-rag-gate-report.json}
junit=${INPUT_JUNIT_PATH:-rag-gate-junit.xml}
html=${INPUT_HTML_PATH:-}
workdir=${INPUT_WORKING_DIRECTORY:-.}
[ -d "$workdir" ] || usage_error "Input 'working-directory' is '$workdir', which is not a directory."
cd "$workdir" || usage_error "Cannot enter the working directory '$workdir'."

args=(-m pytest --rag-gate -p no:cacheprovider
  --rag-gate-judge "$judge" --rag-gate-set "cache.mode=$cache"
  --rag-gate-output "json=$report" --rag-gate-output "junit=$junit")

if [ -n "$html" ]; then
  args+=(--rag-gate-output "html=$html")
fi
if [ -n "${INPUT_CONFIG:-}" ]; then
  [ -f "$INPUT_CONFIG" ] || usage_error "Input 'config' is '$INPUT_CONFIG', which does not exist."
  args+=(--rag-gate-config "$INPUT_CONFIG")
fi
if [ -n "${INPUT_MODEL:-}" ]; then
  args+=(--rag-gate-set "judge.model=$INPUT_MODEL")
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
# A missing path is the caller's mistake, not a gate result: left to pytest it would end
# as a report over no cases ("FAILED") next to pytest's own usage error.
for path in "${paths[@]}"; do
  [ -e "${path%%::*}" ] || usage_error "Input 'paths' has '$path', which does not exist$(where)."
done
args+=(--)
args+=("${paths[@]}")

# A stale report from an earlier step must never be read as this run's result.
rm -f -- "$report" "$junit" ${html:+"$html"}

# pytest's output is kept (and still streamed to the log) so that when it stops with a
# usage error, its reason reaches the step summary rather than only the log.
log=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/rag-gate-log.XXXXXX") || log=/dev/null
trap '[ "$log" = /dev/null ] || rm -f -- "$log"' EXIT

python=${RAG_GATE_PYTHON:-python}
echo "rag-gate: $python ${args[*]}"
PYTHONUNBUFFERED=1 "$python" "${args[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

pytest_reason() {
  # pytest's own error lines (`ERROR: file or directory not found: …`, argparse's
  # `pytest: error: unrecognized arguments: …`), colour codes removed; with `fallback`,
  # the last line of output when there are none.
  local text reason
  text=$(sed "s/"$'\033'"\\[[0-9;]*m//g" "$log" 2>/dev/null)
  reason=$(grep -E '^(ERROR: |[^[:space:]]+( -m pytest)?: error: )' <<<"$text" |
    grep -v '^ERROR: usage: ' | head -n 5)
  if [ -z "$reason" ] && [ "${1:-}" = fallback ]; then
    reason=$(grep -v '^[[:space:]]*$' <<<"$text" | tail -n 1)
  fi
  printf '%s' "$reason"
}

summary_block() {
  # heading, text, pytest's reason (each may be empty): one section of the step summary.
  local block=$1
  [ -z "$2" ] || block+=$'\n\n'"$2"
  [ -z "$3" ] || block+=$'\n\n```text\n'"$3"$'\n```'
  summary_append "$block"
}

read_report() {
  # The report's verdict, the one-line summary, whether it is a deploy decision (true or
  # false), whether the offline heuristic scored a metric of it and whether it passed on
  # thin evidence (true or false each); nothing when it cannot be read.
  "$python" - "$report" <<'PY' 2>/dev/null
import json
import sys

try:
    with open(sys.argv[1], encoding="utf-8") as handle:
        report = json.load(handle)
    verdict = report["verdict"]
except (OSError, ValueError, KeyError, TypeError):
    sys.exit(1)
run = report.get("run") if isinstance(report.get("run"), dict) else {}
judge = report.get("judge") if isinstance(report.get("judge"), dict) else {}
gated = run.get("gated_cases", len(report.get("cases") or []))
collected = run.get("collected_cases", gated)
cases = f"{gated} cases" if gated == collected else f"{gated} of {collected} cases"
recommendation = report.get("recommendation") or "; ".join(run.get("partial_reasons") or [])
line = f"RAG gate {str(verdict).upper()}: {recommendation} (judge {judge.get('kind', '?')}, {cases})"
scored_by = run.get("scored_by")
metrics = report.get("metrics") if isinstance(report.get("metrics"), dict) else {}
if isinstance(scored_by, dict):
    heuristic = "offline" in scored_by.values()
else:
    # Written before each metric's judge was recorded: one judge scored every metric.
    heuristic = judge.get("kind") == "offline"
thin = (
    verdict == "passed"
    and report.get("deploy_decision") is False
    and str(report.get("recommendation") or "").startswith("Passed on thin evidence")
)
if "deploy_decision" in report:
    # The gate decided; a metric the heuristic scored outside the gate decides nothing.
    decision = report["deploy_decision"] is True
    gated = [
        name
        for name, metric in metrics.items()
        if isinstance(metric, dict) and metric.get("threshold") is not None
    ]
    if decision:
        heuristic = False
    elif verdict != "passed" and isinstance(scored_by, dict) and gated:
        heuristic = any(scored_by.get(name) == "offline" for name in gated)
    else:
        # A pass that is no deploy decision is the heuristic's smoke check.
        heuristic = heuristic or (verdict == "passed" and not thin)
else:
    # A report without the field is a deploy decision only when it passed on an LLM judge.
    decision = verdict == "passed" and not heuristic
print(verdict)
print(" ".join(line.split()))
print("true" if decision else "false")
print("true" if heuristic else "false")
print("true" if thin else "false")
print(" ".join(str(judge.get("selected_by") or "").split()))
PY
}

prefix=""
if [ "$workdir" != "." ]; then
  prefix="${workdir%/}/"
fi
case "$report" in /*) report_out=$report ;; *) report_out=$prefix$report ;; esac
case "$junit" in /*) junit_out=$junit ;; *) junit_out=$prefix$junit ;; esac
case "$html" in /*) html_out=$html ;; *) html_out=$prefix$html ;; esac

verdict=""
summary=""
decision=false
heuristic=false
thin=false
selected_by=""
if [ -f "$report" ]; then
  { IFS= read -r verdict && IFS= read -r summary && IFS= read -r decision &&
    IFS= read -r heuristic && IFS= read -r thin && IFS= read -r selected_by; } < <(read_report)
fi

case "$verdict" in
passed | failed | error | partial | ungated)
  # The gate decided, whatever pytest's status: `verdict` is the gate's word and
  # `exit-code` pytest's. The plugin has written the Markdown summary and annotations.
  # `error` from a report means the judge did not answer: no deploy decision, retry.
  if [ "$verdict" = passed ] && [ "$status" -ne 0 ]; then
    # The plugin never reports "passed" for a failing run; should a report disagree with
    # pytest anyway, a deploy conditioned on `verdict == 'passed'` must not go ahead.
    verdict=failed
    decision=false
    summary="RAG gate FAILED: pytest exited $status although the report says passed"
    echo "::error title=RAG gate::$(escape "$summary")"
    summary_block "## ❌ RAG gate: FAILED" \
      "pytest exited with status $status although the report says passed; see the job log." ""
  fi
  if [ "$status" -eq 4 ]; then
    # A usage error (a path given in extra-args that does not exist, unreadable golden
    # files): the report's summary says what was gated, pytest's lines say why it stopped.
    reason=$(pytest_reason)
    if [ -n "$reason" ]; then
      echo "::error title=RAG gate::$(escape "pytest exited 4: $reason")"
      summary_block "**pytest stopped with a usage error (exit 4):**" "" "$reason"
    fi
  fi
  output verdict "$verdict"
  output report-path "$report_out"
  ;;
*)
  # No report from this run: pytest's usage errors, interrupts and crashes.
  verdict=error
  reason=$(pytest_reason fallback)
  summary="RAG gate: no verdict (pytest exited $status${reason:+: ${reason//$'\n'/; }})"
  echo "::error title=RAG gate::$(escape "$summary")"
  summary_block "## ⚠️ RAG gate: no verdict" \
    "pytest exited with status $status without writing a report; see the job log." "$reason"
  verdict=error
  decision=false
  output verdict error
  output report-path ""
  ;;
esac
output deploy-decision "${decision:-false}"
if [ -f "$junit" ]; then
  output junit-path "$junit_out"
else
  output junit-path ""
fi
if [ -n "$html" ] && [ -f "$html" ]; then
  output html-path "$html_out"
else
  output html-path ""
fi
output summary "$summary"
output exit-code "$status"
echo "$summary"
if [ "$status" -eq 0 ] && [ "$verdict" != passed ] && [[ "$allowed" != *" $verdict "* ]]; then
  # pytest exits 0 on a partial or ungated run, which is no deploy decision: the step
  # fails so that a check of its status never deploys one. `exit-code` stays pytest's.
  echo "::error title=RAG gate::$(escape "The verdict is $verdict, not passed: the step fails. Add 'allow: $verdict' to accept it (e.g. in a shard job whose merge decides).")"
  exit 1
fi
if [ "$status" -eq 0 ] && [ "$heuristic" = true ] && [ "$judge" != offline ] &&
  [[ "$allowed" != *" offline "* ]]; then
  # The offline heuristic's pass is a smoke check, not a deploy decision. A workflow that
  # chose `judge: offline` asked for one; `judge: auto` fell back to it because the key
  # was missing (every pull request from a fork), which must not read as green.
  if [ "$judge" = auto ] && [[ -n "$selected_by" && "$selected_by" != auto:* ]]; then
    # The key is not why: the config or extra-args chose the offline judge themselves.
    why="the offline heuristic was chosen by the run's settings ($selected_by), not by a missing key"
  elif [ "$judge" = auto ] && [ -z "${ANTHROPIC_API_KEY:-}" ]; then
    why="judge 'auto' fell back to the offline heuristic because ANTHROPIC_API_KEY is not set"
    if [ -n "${OPENAI_API_KEY:-}" ]; then
      why+=" (OPENAI_API_KEY is set: 'judge: openai' uses it)"
    fi
  else
    why="the run was scored by the offline heuristic (judge '$judge')"
  fi
  if [[ "$why" == *"not by a missing key"* ]]; then
    message="no deploy decision: $why; choose an LLM judge there or add 'offline' to allow:"
  else
    message="no deploy decision: $why; set the secret or add 'offline' to allow:"
  fi
  echo "::error title=RAG gate::$(escape "$message")"
  summary_append "**No deploy decision:** ${message#no deploy decision: }"
  exit 1
fi
if [ "$status" -eq 0 ] && [ "$verdict" = passed ] && [ "$thin" = true ] &&
  [[ "$allowed" != *" thin-evidence "* ]]; then
  # A pass whose 95% interval reaches past its threshold says how unsure it is: the step
  # fails so that a check of its status never deploys on two lucky cases.
  message="no deploy decision: the gate passed on thin evidence (its intervals reach past the thresholds); add cases or add 'thin-evidence' to allow:"
  echo "::error title=RAG gate::$(escape "$message")"
  summary_append "**No deploy decision:** ${message#no deploy decision: }"
  exit 1
fi
exit "$status"
