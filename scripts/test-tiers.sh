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

# The real-kernel image (about 9 minutes on a fresh machine, most of it downloads) builds in the
# background while the tiers before the lab run; the lab tier waits for it. No QEMU guest runs
# before then, so nothing under TCG competes with it.
image_pid=""
image_log=.cache/image-s390x.log
if ! m zlab-deps zlab-install; then finish 1; fi
if ! "$(pwd)/.venv/bin/python" -c 'import sys; from zlab import image_s390x; sys.exit(0 if image_s390x.is_built() else 1)'; then
  echo "=== building the real-kernel image in the background (log: $image_log)"
  image_start=$(date +%s)
  .venv/bin/zlab image build --kind debian13-s390x >"$image_log" 2>&1 &
  image_pid=$!
fi

wait_image() {
  [ -n "$image_pid" ] || return 0
  local rc
  wait "$image_pid"
  rc=$?
  image_pid=""
  summary+=("$(printf '%-22s %5ss  %s' "image-s390x (bg)" "$(($(date +%s) - image_start))" \
    "$([ $rc -eq 0 ] && echo built || echo FAILED)")")
  if [ $rc -ne 0 ]; then tail -n 40 "$image_log"; fi
  return $rc
}

# The real-kernel tests and scenario (QEMU TCG guests, mostly one core) run in the background from
# the lab tier on, while the emulated lab tests and scenarios (mostly the Ansible controller) run in
# the foreground; make test waits for them at the end.
real_pid=""
real_log=.cache/test-real-kernel.log
start_real_kernel() {
  m zlab-image || return 1
  echo "=== tier test-real-kernel started in the background (log: $real_log)"
  real_start=$(date +%s)
  m test-real-kernel >"$real_log" 2>&1 &
  real_pid=$!
}

wait_real_kernel() {
  [ -n "$real_pid" ] || return 0
  local rc
  wait "$real_pid"
  rc=$?
  real_pid=""
  echo "=== tier test-real-kernel (background), its log:"
  cat "$real_log"
  summary+=("$(printf '%-22s %5ss  %s' "test-real-kernel (bg)" "$(($(date +%s) - real_start))" \
    "$([ $rc -eq 0 ] && echo passed || echo FAILED)")")
  return $rc
}

for t in lint lint-dev sanity galaxy-import units test-matrix test-zlab test-zlab-lab-emulated \
  test-molecule-emulated test-enterprise-all test-ee; do
  if [ "$t" = test-zlab-lab-emulated ]; then
    wait_image || finish 1
    start_real_kernel || finish 1
  fi
  tier "$t" m "$t" || { wait_image; wait_real_kernel; finish 1; }
done
wait_real_kernel || finish 1
finish 0
