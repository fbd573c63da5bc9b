#!/usr/bin/env bash
# Import a built collection artifact the way Galaxy and Automation Hub do on every upload:
# galaxy-importer with its ansible-lint run (production profile) and ansible-doc of every plugin,
# without the ansible-test container.
# Usage: scripts/galaxy-import.sh VENV ARTIFACT
#   VENV      the venv with galaxy-importer (requirements-galaxy.txt; `make galaxy-venv`)
#   ARTIFACT  s390x-network-<version>.tar.gz (`make build`)
# galaxy-importer exits 0 on lint findings and logs them as warnings, so the import fails here when
# the importer fails or prints any ERROR or WARNING line.
# The importer runs with a clean environment (the Makefile's ANSIBLE_CONFIG and
# ANSIBLE_COLLECTIONS_PATH point at the working tree, not at the artifact; GALAXY_IMPORTER_* would
# override the configuration below), a HOME and temporary directories of its own, and - where the
# kernel allows it - in a network namespace with no network at all: the import needs none.
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: $0 VENV ARTIFACT" >&2
  exit 2
fi
venv="$(realpath "$1")"
artifact="$(realpath "$2")"
repo="$(cd "$(dirname "$0")/.." && pwd)"
test -x "$venv/bin/python" || { echo "galaxy-import: no venv at $venv (make galaxy-venv)" >&2; exit 2; }
test -f "$artifact" || { echo "galaxy-import: no artifact $artifact (make build)" >&2; exit 2; }

mkdir -p "$repo/.cache"
work="$(mktemp -d "$repo/.cache/galaxy-import.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/tmp" "$work/ansible-tmp"
log="$repo/.cache/galaxy-import.log"

cat >"$work/galaxy-importer.cfg" <<EOF
[galaxy-importer]
run_ansible_doc = True
run_ansible_lint = True
offline_ansible_lint = True
run_ansible_test = False
ansible_test_local_image = False
local_image_docker = False
check_changelog = True
check_required_tags = True
log_level_main = INFO
ansible_local_tmp = $work/ansible-tmp
tmp_root_dir = $work/tmp
EOF

netns=()
if unshare --net true 2>/dev/null; then
  netns=(unshare --net --)
  echo "galaxy-import: running without network (own network namespace)"
else
  echo "galaxy-import: no network namespace available here; running with the machine's network"
fi

cd "$work"
set +e
"${netns[@]}" env -i \
  HOME="$work/home" \
  TMPDIR="$work/tmp" \
  PATH="$venv/bin:/usr/local/bin:/usr/bin:/bin" \
  LANG=C.UTF-8 \
  GALAXY_IMPORTER_CONFIG="$work/galaxy-importer.cfg" \
  "$venv/bin/python" -m galaxy_importer.main "$artifact" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

failed=0
if [ "$rc" -ne 0 ]; then
  echo "galaxy-import: galaxy-importer exited $rc" >&2
  failed=1
fi
if findings="$(grep -nE '\b(ERROR|WARNING|CRITICAL)\b' "$log")"; then
  echo "galaxy-import: $(printf '%s\n' "$findings" | wc -l) ERROR/WARNING line(s) in the import log:" >&2
  printf '%s\n' "$findings" >&2
  failed=1
fi
# the lint must have run, not been skipped
for line in 'Linting collection via ansible-lint' '...ansible-lint run complete' \
  'Importer processing completed successfully'; do
  if ! grep -qF -- "$line" "$log"; then
    echo "galaxy-import: the import log lacks '$line'" >&2
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "galaxy-import: FAILED (log: .cache/galaxy-import.log)" >&2
  exit 1
fi
"$venv/bin/python" - "$work/importer_result.json" <<'EOF'
import collections
import json
import sys

with open(sys.argv[1]) as handle:
    result = json.load(handle)
kinds = collections.Counter(item["content_type"] for item in result["contents"])
print(
    "galaxy-import: passed - requires_ansible %s; %s"
    % (result["requires_ansible"], ", ".join("%d %s" % (n, kind) for kind, n in sorted(kinds.items())))
)
EOF
