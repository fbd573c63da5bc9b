#!/usr/bin/env bash
# `make test-ee`: the execution environment of execution-environment.yml built and run for real.
#   1. the base image, made locally from Debian packages (scripts/ee-base-image.sh)
#   2. the EE, built by ansible-builder with podman from that base and the collection tarball of
#      this tree (.cache/ee/src is the definition's directory: the definition, bindep.txt,
#      requirements.txt, scripts/ee-pkgmgr.sh and the tarball)
#   3. ansible-navigator (pinned in scripts/ee-navigator-requirements.txt, venv .cache/ee/navigator)
#   4. the built-in lab (inventories/lab) up as lab $EE_LAB (default ee-test)
#   5. playbooks/site.yml run from inside the EE with ansible-navigator against the lab: converge,
#      then a second run that must change nothing on any host; the lab is taken down at the end
# Images carry a label with the checksum of their inputs and are rebuilt only when an input
# changes; the venv has a stamp of its requirements file. Prints how long each step took.
#
# `scripts/ee-test.sh build` does steps 1 and 2 only (make ee-build).
#
# Environment: EE_LAB (lab name), EE_KEEP_LAB=1 (leave the lab up), EE_REBUILD=1 (build both
# images even when up to date), EE_PY36_HOSTS (below). Needs root (podman, mmdebstrap, zlab) and `make ee-deps`.
#
# Podman on a machine kind like this one: a private containers.conf (.cache/ee/containers.conf,
# CONTAINERS_CONF) makes every podman call of the run (ansible-builder's build, ansible-navigator's
# runs) use runc, cgroupfs, the file events logger, and the machine's own open-file and process
# limits, so that it works where root lacks CAP_SYS_RESOURCE (podman's default container limits
# cannot be set there) and cgroup v1 is mounted next to a cgroup2 hierarchy that holds a
# controller (crun refuses such a hybrid layout; runc runs there). Builds and runs use the host's
# network: the runs reach the lab's management addresses in the root network namespace, builds
# reach the package mirrors without a container network. The machine's CA bundle is mounted into
# the build steps (not kept in the image), so pip trusts what the machine trusts.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
venv="${VENV:-$repo/.venv}"
work="$repo/.cache/ee"
lab="${EE_LAB:-ee-test}"
zlab="$venv/bin/zlab"
ee_tag=s390x-network-ee
ee_image="localhost/$ee_tag:latest"
mode="${1:-test}"
case "$mode" in
  test | build) ;;
  *) echo "usage: $0 [test|build]" >&2; exit 2 ;;
esac
mkdir -p "$work"
declare -a summary
begin=$(date +%s)

note() { printf '\n=== %s\n' "$*"; }
elapsed() { echo $(($(date +%s) - $1)); }
record() { summary+=("$(printf '%-44s %5ss  %s' "$1" "$2" "${3:-}")"); }
# Strips the event data that ansible-runner hides in its output with terminal escapes.
plain() { sed -E 's/\x1b\[K[^\x1b]*\x1b\[[0-9]+D//g; s/\x1b\[K//g; s/\x1b\[[0-9;]*m//g' "$@"; }
# Copies its input to stdout and to the stderr already open; tee given stderr's device path would
# open the caller's file again and truncate it (make test > log).
to_stderr_too() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    printf '%s\n' "$line"
    printf '%s\n' "$line" >&2
  done
}
# recap LOG: the PLAY RECAP lines of the last recap
recap() { awk '/^PLAY RECAP/ {r = 1; out = ""; next} r && /ok=/ {out = out $0 "\n"} r && !/ok=/ {r = 0} END {printf "%s", out}' "$1"; }

# ---------------------------------------------------------------- podman on this machine
conf="$work/containers.conf"
nofile="$(ulimit -Hn)"
nproc="$(ulimit -Hu)"
# podman 4.3 sets its own process limit to 32768 (seen with strace) before it starts the runtime
if [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; then nproc=32768; fi
if [ "$nofile" = unlimited ]; then nofile=1048576; fi
cat >"$conf.tmp" <<EOF
# Written by scripts/ee-test.sh for the podman calls of make test-ee (CONTAINERS_CONF).
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
mv "$conf.tmp" "$conf"
export CONTAINERS_CONF="$conf"
# Nothing of the working tree's Ansible set-up reaches the runs: they use the EE's collection.
for var in $(compgen -e | grep -E '^ANSIBLE_' || true); do unset "$var"; done

# ---------------------------------------------------------------- 1. base image
note "1. base image (scripts/ee-base-image.sh)"
base_image="$("$venv/bin/python" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["images"]["base_image"]["name"])' execution-environment.yml)"
start=$(date +%s)
out="$(scripts/ee-base-image.sh "$base_image" | to_stderr_too)"
record "base image $base_image" "$(elapsed "$start")" "$(grep -q 'up to date' <<<"$out" && echo cached || echo built)"

# ---------------------------------------------------------------- 2. the EE
note "2. execution environment $ee_image (ansible-builder, podman)"
start=$(date +%s)
src="$work/src"
rm -rf "$src"
mkdir -p "$src/scripts"
cp execution-environment.yml bindep.txt requirements.txt "$src/"
cp -p scripts/ee-pkgmgr.sh "$src/scripts/"
"$venv/bin/ansible-galaxy" collection build --force --output-path "$src" . >/dev/null
tarball="$(ls "$src"/s390x-network-*.tar.gz)"
# MANIFEST.json holds the checksum of every file of the collection (and no time stamps)
key="$( (cd "$src" && sha256sum execution-environment.yml bindep.txt requirements.txt scripts/ee-pkgmgr.sh
  tar -xzOf "$tarball" MANIFEST.json | sha256sum
  podman image inspect --format '{{.Id}}' "$base_image"
  "$venv/bin/ansible-builder" --version) | sha256sum | cut -c1-16)"
have="$(podman image inspect --format '{{ index .Labels "s390x-network.ee.key" }}' "$ee_image" 2>/dev/null || true)"
if [ "$have" = "$key" ] && [ "${EE_REBUILD:-0}" != 1 ]; then
  echo "$ee_image is up to date (key $key)"
  state=cached
else
  build_args="--network host --label s390x-network.ee.key=$key"
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    build_args="$build_args -v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro"
  fi
  echo "building $ee_image from $(basename "$tarball") (key $key; log: $work/build.log)"
  if ! "$venv/bin/ansible-builder" build -f "$src/execution-environment.yml" -c "$work/context" \
    --container-runtime podman -t "$ee_tag" --extra-build-cli-args "$build_args" -v 3 >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    echo "ansible-builder build failed (log: $work/build.log)" >&2
    exit 1
  fi
  tail -3 "$work/build.log"
  # Every image built from the base carries its label: the images this build replaced and the
  # stage images no tagged image uses any more (an earlier EE, an earlier base) are removed; the
  # layers of the current EE stay as the build cache.
  podman image prune -f --filter label=s390x-network.ee-base.key >/dev/null
  state=built
fi
record "EE $ee_image" "$(elapsed "$start")" "$state"
if [ "$mode" = build ]; then
  note "summary"
  printf '%s\n' "${summary[@]}"
  exit 0
fi

# ---------------------------------------------------------------- 3. ansible-navigator
note "3. ansible-navigator (.cache/ee/navigator)"
start=$(date +%s)
navreq=scripts/ee-navigator-requirements.txt
navvenv="$work/navigator"
stamp="$navvenv/.stamp-$( (cat "$navreq"; "$venv/bin/python" --version) | sha256sum | cut -c1-12)"
if [ -f "$stamp" ]; then
  echo "up to date"
  state=cached
else
  rm -rf "$navvenv"
  "$venv/bin/python" -m venv "$navvenv"
  "$navvenv/bin/python" -m pip install -q -r "$navreq"
  touch "$stamp"
  state=installed
fi
"$navvenv/bin/ansible-navigator" --version
record "ansible-navigator" "$(elapsed "$start")" "$state"

# ---------------------------------------------------------------- 4. the lab
# EE_PY36_HOSTS: hosts of the built-in lab that run modules with their distribution's Python 3.6
# (zlab_python "3.6": RHEL 8's /usr/libexec/platform-python, found by interpreter discovery);
# the lab is then built from a copy of inventories/lab with that variable in their host_vars.
py36_hosts="${EE_PY36_HOSTS:-}"
lab_inventory=inventories/lab
if [ -n "$py36_hosts" ]; then
  lab_inventory="$work/lab-inventory"
  rm -rf "$lab_inventory"
  cp -r inventories/lab "$lab_inventory"
  for host in $py36_hosts; do
    if ! [[ $host =~ ^[a-z0-9-]+$ ]] || ! grep -qE "^ +$host:$" inventories/lab/hosts.yml; then
      echo "EE_PY36_HOSTS: $host is not a host of inventories/lab/hosts.yml" >&2
      exit 2
    fi
    printf '\n# scripts/ee-test.sh (EE_PY36_HOSTS)\nzlab_python: "3.6"\n' >>"$lab_inventory/host_vars/$host.yml"
  done
fi

note "4. lab $lab (zlab up $lab_inventory)"
start=$(date +%s)
cleanup() {
  if [ "${EE_KEEP_LAB:-0}" = 1 ]; then
    echo "lab $lab left up (EE_KEEP_LAB=1); take it down with: $zlab down $lab"
  else
    "$zlab" down "$lab" || true
  fi
}
# a lab of this name from an earlier run: start from freshly IPLed hosts
"$zlab" down "$lab" >/dev/null
trap cleanup EXIT
"$zlab" up "$lab_inventory" --name "$lab"
record "lab $lab up" "$(elapsed "$start")"

# The project the runs see: the playbooks of the collection in the EE, the lab's inventory and an
# ansible.cfg without a collections path, so the EE's installed collection is the only one.
run="$work/run"
project="$run/project"
rm -rf "$run"
mkdir -p "$project"
tar -xzf "$tarball" -C "$project" playbooks
"$zlab" --lab "$lab" inventory >"$project/inventory.yml"
cat >"$project/ansible.cfg" <<'EOF'
[defaults]
host_key_checking = False
interpreter_python = auto_silent
retry_files_enabled = False
forks = 25

[ssh_connection]
pipelining = True
ssh_args = -C -o ControlMaster=auto -o ControlPersist=60s -o ServerAliveInterval=5 -o ServerAliveCountMax=3
EOF
keydir="$(dirname "$(sed -n 's/^ *ansible_ssh_private_key_file: *//p' "$project/inventory.yml" | head -1)")"
# ansible-navigator runs podman with --ipc=host and wants the POSIX message queue file system
# where systemd mounts it.
if [ ! -d /dev/mqueue ]; then
  echo "mounting the POSIX message queue file system on /dev/mqueue (ansible-navigator needs it)"
  mkdir -p /dev/mqueue && mount -t mqueue mqueue /dev/mqueue
fi
navigator=("$navvenv/bin/ansible-navigator")
nav_opts=(--mode stdout --ee true --ce podman --eei "$ee_image" --pp never --dc false
  --lf "$run/navigator.log" --co=--network=host --eev "$keydir:$keydir:ro")

# ---------------------------------------------------------------- 5. site.yml inside the EE
note "5. inside the EE: ansible-core and the collection"
(cd "$project" && "${navigator[@]}" exec "${nav_opts[@]}" -- \
  'ansible --version | head -1; ansible-galaxy collection list s390x.network --format yaml') 2>&1 | plain | tee "$run/exec.log"
version="$(sed -n 's/^version: *//p' galaxy.yml)"
# the collection installed in the image, and no other copy of it
if [ "$(grep -E '^/.*:$' "$run/exec.log")" != /usr/share/ansible/collections/ansible_collections: ] \
  || [ "$(grep -cx '  s390x.network:' "$run/exec.log")" != 1 ] \
  || ! grep -qx "    version: $version" "$run/exec.log"; then
  echo "the EE does not hold exactly one s390x.network $version in /usr/share/ansible/collections" >&2
  exit 1
fi

site() {  # site N: runs site.yml inside the EE; the log is $run/site-N.log
  local n="$1" start rc
  note "5.$n site.yml inside the EE (run $n)"
  start=$(date +%s)
  set +e
  # the IOCDS deck in the project directory (mounted at the same path): the default, the container's
  # home, is gone after each run, so every run would write it anew
  (cd "$project" && "${navigator[@]}" run playbooks/site.yml -i inventory.yml "${nav_opts[@]}" --pae false \
    -e "iocds_output_dir=$project/iocds-output") \
    >"$run/site-$n.raw" 2>&1
  rc=$?
  set -e
  plain "$run/site-$n.raw" >"$run/site-$n.log"
  tail -n 30 "$run/site-$n.log"
  record "site.yml run $n inside the EE" "$(elapsed "$start")" "exit $rc"
  if [ "$rc" != 0 ]; then
    echo "site.yml run $n failed (exit $rc; log: $run/site-$n.log)" >&2
    return 1
  fi
  if ! recap "$run/site-$n.log" | grep -q 'ok='; then
    echo "site.yml run $n: no PLAY RECAP in $run/site-$n.log" >&2
    return 1
  fi
  if recap "$run/site-$n.log" | grep -vE 'unreachable=0 +failed=0 ' | grep -q .; then
    echo "site.yml run $n: a host failed or was unreachable" >&2
    return 1
  fi
}
site 1
site 2
# the second run changes nothing on any host
if recap "$run/site-2.log" | grep -vE ' changed=0 ' | grep -q .; then
  echo "site.yml run 2 changed something (not idempotent):" >&2
  recap "$run/site-2.log" >&2
  exit 1
fi
hosts="$(recap "$run/site-2.log" | wc -l)"
if [ -n "$py36_hosts" ]; then
  note "5.3 the Python each host ran the modules with"
  (cd "$project" && "${navigator[@]}" exec "${nav_opts[@]}" -- \
    "ansible -i inventory.yml all -o -m ansible.builtin.setup -a 'filter=ansible_python'") 2>&1 | plain >"$run/python.log"
  for host in $(recap "$run/site-2.log" | awk '$1 != "localhost" {print $1}'); do
    line="$(grep "^$host | SUCCESS" "$run/python.log" || true)"
    exe="$(sed -nE 's/.*"executable": "([^"]+)".*/\1/p' <<<"$line")"
    ver="$(sed -nE 's/.*"major": ([0-9]+),.*"minor": ([0-9]+),.*/\1.\2/p' <<<"$line")"
    echo "$host: $exe (Python $ver)"
    if [[ " $py36_hosts " == *" $host "* ]] && { [ "$ver" != 3.6 ] || [ "$exe" != /usr/libexec/platform-python ]; }; then
      echo "$host did not run its modules with the distribution's Python 3.6 (log: $run/python.log)" >&2
      exit 1
    fi
  done
fi

start=$(date +%s)
trap - EXIT
cleanup
record "lab $lab down" "$(elapsed "$start")"

note "summary"
record "total" "$(elapsed "$begin")"
printf '%s\n' "${summary[@]}"
echo "PLAY RECAP of run 1:"
recap "$run/site-1.log"
echo "PLAY RECAP of run 2 (changed=0 on all $hosts hosts):"
recap "$run/site-2.log"
echo "make test-ee: passed (logs in $run)"
