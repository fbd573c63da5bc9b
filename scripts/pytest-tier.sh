#!/usr/bin/env bash
# Run one pytest tier. pytest exits 5 when it collected no test: that is not a failure of the tier
# (a tier may be empty while the collection grows), but it is said out loud. Every other non-zero
# exit code fails.
set -uo pipefail
name="$1"; shift
"$@"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "tier $name: no tests collected (pytest exit 5), counted as empty, not as failed"
  exit 0
fi
exit "$rc"
