#!/usr/bin/env bash
# The molecule scenario `enterprise` (molecule/enterprise) without molecule, for a controller that
# molecule does not support: ansible-core 2.14 (molecule 26 needs ansible-core >= 2.16.19 and
# Python >= 3.10; 2.14 runs on Python 3.9 to 3.11). The same sequence with the scenario's own
# files: destroy, create (zlab up of inventory/, the lab's inventory from `zlab inventory`),
# converge.yml, idempotence (converge.yml again: no task may change), side_effect.yml, verify.yml,
# destroy. Every playbook runs with the ansible-playbook of VENV.
#
#   scripts/enterprise-scenario.sh VENV [LAB]     e.g. .cache/core-2.14 m-enterprise-214
#
# LAB (default m-enterprise-<core>, e.g. m-enterprise-214) is brought up and, whatever happens,
# down again. ZLAB (default .venv/bin/zlab) is the zlab command. Prints each step's time.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$(cd "${1:?usage: $0 VENV [LAB]}" && pwd)
playbook="$venv/bin/ansible-playbook"
[ -x "$playbook" ] || { echo "$0: no ansible-playbook in $venv" >&2; exit 2; }
core=$("$venv/bin/python" -c 'from ansible.release import __version__ as v; print(v)')
lab=${2:-m-enterprise-$(echo "$core" | cut -d. -f1,2 | tr -d .)}
[[ $lab =~ ^m-enterprise[a-z0-9-]*$ ]] || { echo "$0: lab name $lab must start with m-enterprise" >&2; exit 2; }
zlab=${ZLAB:-$root/.venv/bin/zlab}
scenario="$root/molecule/enterprise"
work="$root/.cache/enterprise-$lab"
rm -rf "$work" && mkdir -p "$work/inventory"

export ANSIBLE_CONFIG="$root/ansible.cfg"
export ANSIBLE_COLLECTIONS_PATH="$root/.cache/collections"
export ANSIBLE_HOME="$root/.cache/ansible-home-$lab"
export ANSIBLE_FORCE_COLOR=0
export ENTERPRISE_ZLAB_BIN="$zlab" ENTERPRISE_ZLAB_LAB="$lab"
export MOLECULE_INVENTORY_FILE="$work/inventory/hosts.yml"
export CPC_SCENARIO_OUTPUT="$work/iocds-output"

step_start=0
step() { step_start=$(date +%s); echo "=== enterprise ($core, lab $lab): $1"; }
done_step() { echo "=== enterprise ($core): $1 done in $(( $(date +%s) - step_start )) s"; }
run() {  # run PLAYBOOK: ansible-playbook of the venv with the lab's inventory; output kept in $work
  "$playbook" -i "$work/inventory" "$scenario/$1" 2>&1 | tee "$work/$2.log"
  return "${PIPESTATUS[0]}"
}
destroy() { "$zlab" down "$lab" >/dev/null 2>&1 || true; }
trap destroy EXIT

start=$(date +%s)
step destroy; destroy; done_step destroy
step create
"$zlab" up "$scenario/inventory" --name "$lab" || exit 1
"$zlab" --lab "$lab" inventory > "$work/inventory/hosts.yml" || exit 1
done_step create

step converge; run converge.yml converge || { echo "=== converge FAILED"; exit 1; }; done_step converge

step idempotence
run converge.yml idempotence || { echo "=== idempotence run FAILED"; exit 1; }
# every host of the recap: changed=0 (the idempotence test of molecule)
changed=$(grep -E '^\S+ +: ok=' "$work/idempotence.log" | grep -v -E ' changed=0 ')
if [ -n "$changed" ]; then echo "=== idempotence FAILED, tasks changed:"; echo "$changed"; exit 1; fi
done_step idempotence

step side_effect; run side_effect.yml side_effect || { echo "=== side_effect FAILED"; exit 1; }; done_step side_effect
step verify; run verify.yml verify || { echo "=== verify FAILED"; exit 1; }; done_step verify
step destroy; destroy; done_step destroy
echo "=== enterprise scenario (ansible-core $core) passed in $(( $(date +%s) - start )) s"
