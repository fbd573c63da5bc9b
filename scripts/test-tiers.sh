#!/usr/bin/env bash
# `make test`: every tier, cheapest first, one after the other, with the wall time of each.
# (Building the EE's images in the background from the start was tried: the real s390x kernel under
# QEMU TCG in the lab tier then missed its SSH timeouts on a 2-core machine.)
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

finish() {
  local rc=$1
  echo
  echo "=== make test: wall time of each tier"
  printf '%s\n' "${summary[@]}"
  echo "total                  $(($(date +%s) - begin))s"
  if [ "$rc" -eq 0 ]; then echo "make test: all tiers passed"; else echo "make test: FAILED"; fi
  exit "$rc"
}

m() { make --no-print-directory "$@"; }

# Background jobs: bg NAME LOG COMMAND... starts one; bg_wait NAME OK_WORD waits for it, adds its line
# to the summary (OK_WORD or FAILED) and prints its log (all of it, or its tail when it failed and
# BG_SHOW_ON_FAILURE_ONLY names it). Waiting for a job that was not started succeeds.
declare -A bg_pid bg_start bg_log
bg() {
  local name=$1 log=$2
  shift 2
  bg_log[$name]=$log
  bg_start[$name]=$(date +%s)
  "$@" >"$log" 2>&1 &
  bg_pid[$name]=$!
}

bg_wait() {
  local name=$1 ok=$2 rc
  [ -n "${bg_pid[$name]:-}" ] || return 0
  wait "${bg_pid[$name]}"
  rc=$?
  unset "bg_pid[$name]"
  summary+=("$(printf '%-22s %5ss  %s' "$name (bg)" "$(($(date +%s) - bg_start[$name]))" \
    "$([ $rc -eq 0 ] && echo "$ok" || echo FAILED)")")
  if [[ " ${BG_SHOW_ON_FAILURE_ONLY:-} " == *" $name "* ]]; then
    if [ $rc -ne 0 ]; then tail -n 40 "${bg_log[$name]}"; fi
  else
    echo "=== tier $name (background), its log:"
    cat "${bg_log[$name]}"
  fi
  return $rc
}

# The real-kernel image (about 9 minutes on a fresh machine, most of it downloads) builds in the
# background while the tiers before the lab run; the lab tier waits for it. No QEMU guest runs
# before then, so nothing under TCG competes with it.
BG_SHOW_ON_FAILURE_ONLY="image-s390x"
if ! m zlab-deps zlab-install; then finish 1; fi
if ! "$(pwd)/.venv/bin/python" -c 'import sys; from zlab import image_s390x; sys.exit(0 if image_s390x.is_built() else 1)'; then
  echo "=== building the real-kernel image in the background (log: .cache/image-s390x.log)"
  bg image-s390x .cache/image-s390x.log .venv/bin/zlab image build --kind debian13-s390x
fi

# The real-kernel tests and scenario (QEMU TCG guests, mostly one core) run in the background from
# the lab tier on, while the emulated lab tests and scenarios (mostly the Ansible controller) run in
# the foreground; make test waits for them at the end.
start_real_kernel() {
  m zlab-image || return 1
  echo "=== tier test-real-kernel started in the background (log: .cache/test-real-kernel.log)"
  bg test-real-kernel .cache/test-real-kernel.log m test-real-kernel
}

for t in lint lint-dev sanity galaxy-import units test-matrix test-zlab test-zlab-lab-emulated \
  test-molecule-emulated test-enterprise-all test-ee; do
  if [ "$t" = test-zlab-lab-emulated ]; then
    bg_wait image-s390x built || finish 1
    start_real_kernel || finish 1
  fi
  tier "$t" m "$t" || { bg_wait image-s390x built; bg_wait test-real-kernel passed; finish 1; }
done
bg_wait test-real-kernel passed || finish 1
finish 0
