#!/usr/bin/env bash
# `make test`: every tier, cheapest first, with the wall time of each.
# Two long tiers overlap with others to keep the whole run under 45 minutes on a 2-core machine:
# - the execution environment's images (downloads, package installs) are built in the background
#   from the start; `make test-ee` at the end then finds them up to date and only runs the lab;
# - the enterprise scenario (its own labs, m-enterprise and m-enterprise-214) runs in the
#   background next to the molecule tier, whose emulated-lab scenarios mostly wait on SSH.
# A background job's log is printed when it is joined; any failing tier fails the run.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache
declare -a summary
begin=$(date +%s)

tier() {
  local name="$1" start rc
  shift
  echo "=== tier $name"
  start=$(date +%s)
  "$@"
  rc=$?
  summary+=("$(printf '%-22s %5ss  %s' "$name" "$(($(date +%s) - start))" "$([ $rc -eq 0 ] && echo passed || echo FAILED)")")
  return $rc
}

bg_start() { # NAME LOG COMMAND...: runs COMMAND in the background, its output in LOG
  local name="$1" log="$2"
  shift 2
  echo "=== tier $name started in the background (log: $log)"
  bg_starts[$name]=$(date +%s)
  # a session of its own, so that a failure elsewhere stops the job with everything it started
  setsid "$@" >"$log" 2>&1 &
  bg_pids[$name]=$!
  bg_logs[$name]=$log
}

bg_join() { # NAME: waits for the job, prints its log, records its time
  local name="$1" rc
  wait "${bg_pids[$name]}"
  rc=$?
  cat "${bg_logs[$name]}"
  summary+=("$(printf '%-22s %5ss  %s (in the background)' "$name" "$(($(date +%s) - bg_starts[$name]))" "$([ $rc -eq 0 ] && echo passed || echo FAILED)")")
  unset "bg_pids[$name]"
  return $rc
}

finish() {
  local rc=$1 name
  for name in "${!bg_pids[@]}"; do
    kill -- "-${bg_pids[$name]}" 2>/dev/null
    wait "${bg_pids[$name]}" 2>/dev/null
    summary+=("$(printf '%-22s %5ss  %s' "$name" "$(($(date +%s) - bg_starts[$name]))" "stopped (an earlier tier failed)")")
  done
  echo
  echo "=== make test: wall time of each tier"
  printf '%s\n' "${summary[@]}"
  echo "total                  $(($(date +%s) - begin))s"
  if [ "$rc" -eq 0 ]; then echo "make test: all tiers passed"; else echo "make test: FAILED"; fi
  exit "$rc"
}

declare -A bg_pids bg_starts bg_logs
m() { make --no-print-directory "$@"; }

# apt first, in the foreground: the background build must not race other tiers for dpkg's lock
tier ee-deps m ee-deps || finish 1
bg_start ee-build .cache/ee-build.log make --no-print-directory ee-build

for t in lint lint-dev sanity galaxy-import units test-matrix test-zlab test-zlab-lab; do
  tier "$t" m "$t" || finish 1
done
m zlab-image enterprise-venv >/dev/null || finish 1
bg_start test-enterprise-all .cache/enterprise-all.log make --no-print-directory test-enterprise-all
tier test-molecule m test-molecule || finish 1
bg_join test-enterprise-all || finish 1
bg_join ee-build || finish 1
tier test-ee m test-ee || finish 1
finish 0
