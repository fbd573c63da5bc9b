#!/usr/bin/env bash
# Run `ansible-test sanity` on a private copy of the collection content.
# Usage: scripts/sanity.sh [ansible-test sanity args / paths...]
# ansible-test needs the tree at .../ansible_collections/<ns>/<name>; a private copy per run lets
# several people run it at once. The copy holds what git tracks plus untracked files that are not
# ignored, minus the development-only trees that are not part of the collection (zlab/, benchmarks/,
# mk/, scripts/): those are excluded from the Galaxy artifact and linted by `make lint-dev`.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
venv="${VENV:-$repo/.venv}"
py="$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
work="$(mktemp -d /tmp/s390x-sanity.XXXXXX)"
trap 'rm -rf "$work"' EXIT
dest="$work/ansible_collections/s390x/network"
mkdir -p "$dest"
cd "$repo"
git ls-files -z --cached --others --exclude-standard \
  | grep -zvE '^(zlab|benchmarks|mk|scripts)/' \
  | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
  | xargs -0 cp --parents -t "$dest"
# ansible-test lists a collection's files through git when it is a repository.
git -C "$dest" init -q && git -C "$dest" add -A >/dev/null
cd "$dest"
args=()
for a in "$@"; do
  # paths given relative to the repository stay valid in the copy
  args+=("$a")
done
export PATH="$venv/bin:$PATH"
exec "$venv/bin/ansible-test" sanity --python "$py" --color no "${args[@]}"
