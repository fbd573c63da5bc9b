#!/usr/bin/env bash
# The ansible-core support matrix and the target Python 3.6 checks (mk/matrix.mk builds the venvs).
#
#   core-matrix.sh run JOB...     run the jobs, MATRIX_JOBS (default 2) at a time; each job's output
#                                 is printed when it ends, then a table of the jobs with their times.
#   core-matrix.sh job JOB        run one job in the foreground
#   core-matrix.sh lock NAME PYTHON SPEC...
#                                 re-pin tests/matrix/NAME.txt: a scratch venv of PYTHON with SPEC
#                                 installed, `pip freeze` written below the file's comment header
#
# Jobs:
#   sanity-X.Y   ansible-test sanity of ansible-core X.Y (venv .cache/core-X.Y) on its controller
#                Python: MATRIX_SANITY_TESTS (compile import validate-modules ansible-doc yamllint),
#                no ignore files; then `compile` on every target-only Python of that core from 3.6 on
#                that is on PATH (ansible-test compiles the modules, module_utils and their unit tests).
#   units-X.Y    the unit tests (tests/unit, except tests/unit/collection: checks of the repository
#                and the artifact, run with the pinned toolchain by `make units`) on ansible-core X.Y.
#   units-py36   the host-side unit tests (scripts/host-side.py host-tests) under Python 3.6 with
#                ansible-core 2.16's module_utils, the newest that runs modules on Python 3.6.
#   vermin       vermin: no syntax or standard library newer than Python 3.6 in the host-side files
#                (scripts/host-side.py host).
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="$repo/.cache"
logs="$cache/matrix/logs"
MATRIX_SANITY_TESTS="${MATRIX_SANITY_TESTS:-compile import validate-modules ansible-doc yamllint}"
MATRIX_JOBS="${MATRIX_JOBS:-2}"
# pythonX.Y of the pyenv versions (mk/matrix.mk links them here); pyenv's shims only run the global one
export PATH="$cache/matrix/bin:$PATH"
# as `make` sets them: the working tree is the collection s390x.network
export ANSIBLE_COLLECTIONS_PATH="${ANSIBLE_COLLECTIONS_PATH:-$cache/collections}"
export ANSIBLE_CONFIG="${ANSIBLE_CONFIG:-$repo/ansible.cfg}"

die() {
  echo "core-matrix: $*" >&2
  exit 2
}

venv_of() {
  case "$1" in
    py36) echo "$cache/py36" ;;
    vermin) echo "$cache/vermin" ;;
    *) echo "$cache/core-$1" ;;
  esac
}

need_venv() {
  [ -x "$1/bin/python" ] || die "$1 is missing: run make matrix-venvs"
}

# Python versions ansible-test of a core supports on targets only (not as controller), e.g. 3.6 3.7 3.8
target_only_pythons() {
  "$1/bin/python" - <<'EOF'
from ansible_test._util.target.common.constants import REMOTE_ONLY_PYTHON_VERSIONS as V
print(" ".join(v for v in V if tuple(int(p) for p in v.split(".")) >= (3, 6)))
EOF
}

job_sanity() {
  local core="$1" venv py tests=() v rc=0
  venv="$(venv_of "$core")"
  need_venv "$venv"
  py="$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  for t in $MATRIX_SANITY_TESTS; do tests+=(--test "$t"); done
  echo "== ansible-core $("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)') sanity on Python $py: $MATRIX_SANITY_TESTS"
  VENV="$venv" "$repo/scripts/sanity.sh" "${tests[@]}" || rc=1
  for v in $(target_only_pythons "$venv"); do
    if command -v "python$v" >/dev/null && "python$v" -c '' 2>/dev/null; then
      echo "== compile on target Python $v"
      # the later --python wins over the controller's that scripts/sanity.sh passes
      VENV="$venv" "$repo/scripts/sanity.sh" --test compile --python "$v" || rc=1
    else
      echo "== compile on target Python $v: no python$v on PATH, not run"
    fi
  done
  return "$rc"
}

job_units() {
  local core="$1" venv
  venv="$(venv_of "$core")"
  need_venv "$venv"
  cd "$repo" || return 1
  echo "== unit tests on ansible-core $("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)')," \
    "Python $("$venv/bin/python" -c 'import platform; print(platform.python_version())')"
  "$repo/scripts/pytest-tier.sh" "units-$core" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --import-mode=importlib \
    --ignore=tests/unit/collection tests/unit
}

job_units_py36() {
  local venv tests
  venv="$(venv_of py36)"
  need_venv "$venv"
  cd "$repo" || return 1
  mapfile -t tests < <("$venv/bin/python" scripts/host-side.py host-tests)
  [ "${#tests[@]}" -gt 0 ] || die "no host-side unit tests found"
  echo "== host-side unit tests under Python $("$venv/bin/python" -c 'import platform; print(platform.python_version())')" \
    "with the module_utils of ansible-core $("$venv/bin/python" -c 'from ansible.module_utils.ansible_release import __version__ as v; print(v)'):" \
    "${#tests[@]} files"
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --import-mode=importlib \
    --hypothesis-profile slow-interpreter "${tests[@]}"
}

job_vermin() {
  local venv files
  venv="$(venv_of vermin)"
  need_venv "$venv"
  cd "$repo" || return 1
  mapfile -t files < <("$venv/bin/python" scripts/host-side.py host)
  [ "${#files[@]}" -gt 0 ] || die "no host-side files found"
  echo "== vermin $("$venv/bin/vermin" --version): ${#files[@]} host-side files must run on Python 3.6"
  # --pessimistic: a syntax error (syntax the parser does not know) counts as a violation too
  "$venv/bin/vermin" -t=3.6- --violations --no-tips --pessimistic --eval-annotations "${files[@]}"
}

run_job() {
  case "$1" in
    sanity-*) job_sanity "${1#sanity-}" ;;
    units-py36) job_units_py36 ;;
    units-*) job_units "${1#units-}" ;;
    vermin) job_vermin ;;
    *) die "unknown job $1" ;;
  esac
}

run_all() {
  [ "$#" -gt 0 ] || die "no job given"
  mkdir -p "$logs"
  local start end job running=0 failed=() summary=()
  declare -A started=()
  declare -A pid_job=()
  start=$(date +%s)
  finish_one() {
    local pid rc job t
    wait -n -p pid
    rc=$?
    job="${pid_job[$pid]}"
    t=$(($(date +%s) - started[$job]))
    echo "---------------- $job (exit $rc, ${t}s) ----------------"
    cat "$logs/$job.log"
    summary+=("$(printf '%-12s %5ss  %s' "$job" "$t" "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)")")
    [ "$rc" -eq 0 ] || failed+=("$job")
    running=$((running - 1))
  }
  for job in "$@"; do
    while [ "$running" -ge "$MATRIX_JOBS" ]; do finish_one; done
    echo "core-matrix: starting $job"
    started[$job]=$(date +%s)
    "$0" job "$job" >"$logs/$job.log" 2>&1 &
    pid_job[$!]="$job"
    running=$((running + 1))
  done
  while [ "$running" -gt 0 ]; do finish_one; done
  end=$(date +%s)
  echo "---------------- support matrix: $((end - start))s with $MATRIX_JOBS jobs at a time ----------------"
  printf '%s\n' "${summary[@]}"
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "core-matrix: failed: ${failed[*]} (logs in $logs)"
    return 1
  fi
  echo "core-matrix: all $# jobs passed"
}

lock() {
  local name="$1" python="$2" file scratch
  shift 2
  file="$repo/tests/matrix/$name.txt"
  [ -f "$file" ] || die "$file does not exist (its comment header says what it is for)"
  scratch="$(mktemp -d /tmp/s390x-lock.XXXXXX)"
  trap 'rm -rf "$scratch"' RETURN
  "$python" -m venv "$scratch/venv" || return 1
  # pip picks the newest pip (and packages) that declare support for this Python
  "$scratch/venv/bin/python" -m pip install -q --upgrade pip || return 1
  "$scratch/venv/bin/python" -m pip install -q "$@" || return 1
  {
    sed -n '/^#/p' "$file"
    "$scratch/venv/bin/python" -m pip freeze --all | grep -vE '^(pip|setuptools|wheel)=='
  } >"$scratch/pins" && mv "$scratch/pins" "$file"
  echo "pinned $file"
}

case "${1:-}" in
  run)
    shift
    run_all "$@"
    ;;
  job)
    [ "$#" -eq 2 ] || die "usage: core-matrix.sh job JOB"
    run_job "$2"
    ;;
  lock)
    [ "$#" -ge 4 ] || die "usage: core-matrix.sh lock NAME PYTHON SPEC..."
    shift
    lock "$@"
    ;;
  *) die "usage: core-matrix.sh run JOB... | job JOB | lock NAME PYTHON SPEC..." ;;
esac
