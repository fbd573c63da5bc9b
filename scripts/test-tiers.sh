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

for t in lint lint-dev sanity galaxy-import units test-matrix test-zlab test-zlab-lab test-molecule \
  test-enterprise-all test-ee; do
  tier "$t" m "$t" || finish 1
done
finish 0
