#!/usr/bin/env bash
# The main job, end to end, against the built-in emulated CPC (inventories/lab):
# site.yml from freshly IPLed hosts, guest g1 started with the definition site.yml wrote, a
# second run that gives g1's NIC its address, a third run with 0 changed, drift injected behind
# Ansible's back, drift.yml reporting and correcting it, verify.yml (with the TCP connection from
# lpar-b to g1 over the rendezvous network), and g1's ISM function. Leaves the lab up. Called by
# `make demo` after set-up.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
export PATH="$repo/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="$repo/.cache/collections" ANSIBLE_CONFIG="$repo/ansible.cfg"
export ANSIBLE_FORCE_COLOR=0 ANSIBLE_NOCOLOR=1
lab="${ZLAB_LAB_NAME:-lab}"
out="$repo/.cache/demo"
mkdir -p "$out"
inv="$out/inventory.yml"
declare -a summary

step() { printf '\n=== %s\n' "$*"; }
recap() {  # recap LOG -> "ok=.. changed=.. failed=.." summed over hosts
  awk '/^PLAY RECAP/ {r=1; next} r && /ok=/ {for (i=1;i<=NF;i++) {split($i,kv,"="); if (kv[1] in s || kv[1] ~ /^(ok|changed|unreachable|failed)$/) s[kv[1]]+=kv[2]}} END {printf "ok=%d changed=%d unreachable=%d failed=%d", s["ok"], s["changed"], s["unreachable"], s["failed"]}' "$1"
}
play() {  # play NAME LOG PLAYBOOK [ARGS...] -> runs, tees, returns the exit status
  local name="$1" log="$2"; shift 2
  local start rc; start=$(date +%s)
  set +e
  ansible-playbook -i "$inv" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  summary+=("$(printf '%-34s exit %-3s %4ss  %s' "$name" "$rc" "$(( $(date +%s) - start ))" "$(recap "$log")")")
  return "$rc"
}

step "1. bring up the emulated CPC (zlab up inventories/lab)"
if zlab --lab "$lab" status >/dev/null 2>&1; then
  echo "lab '$lab' is already up; taking it down for a freshly IPLed start"
  zlab down "$lab"
fi
zlab up inventories/lab --name "$lab"
zlab --lab "$lab" inventory > "$inv"

step "2. site.yml from freshly IPLed hosts"
play "site.yml (first run)" "$out/site-1.log" playbooks/site.yml

# The lab's libvirtd cannot run s390x guests, so a guest gets the devices of its definition when
# the lab starts it (zlab start-guest), as a real guest does at its next start.
step "3. start guest g1 with its new definition (MacVTap NIC on enc8200, ISM FID 0x605); site.yml gives the NIC its address"
zlab --lab "$lab" stop-guest g1 || true
zlab --lab "$lab" start-guest g1
play "site.yml (after g1's start)" "$out/site-2.log" playbooks/site.yml
grep -q "lpar-b -> g1 10.50.0.12" "$out/site-2.log" \
  && summary+=("rendezvous network: TCP from lpar-b to g1 10.50.0.12:22 over 10.50.0.0/24 (HiperSockets F0)")

step "3b. site.yml once more: nothing to change"
play "site.yml (third run)" "$out/site-3.log" playbooks/site.yml
changed=$(recap "$out/site-3.log" | sed 's/.*changed=\([0-9]*\).*/\1/')
if [ "$changed" != "0" ]; then echo "third run changed $changed task(s): not idempotent" >&2; exit 1; fi

step "4. drift behind Ansible's back (zlab drift)"
zlab --lab "$lab" drift lpar-b rm /etc/udev/rules.d/41-qeth-0.0.8200.rules
zlab --lab "$lab" drift lpar-b sysctl net.ipv4.tcp_rmem "4096 131072 6291456"
zlab --lab "$lab" drift lpar-a offline 0.0.8200
zlab --lab "$lab" drift lpar-b power 606 0
zlab --lab "$lab" exec lpar-b -- ip address replace 10.50.0.99/24 dev enc8200
summary+=("drift injected: lpar-b qeth rule removed, lpar-b tcp_rmem changed, lpar-a 0.0.8200 offline, lpar-b ISM FID 606 powered off, lpar-b extra address 10.50.0.99")

step "5. drift.yml reports it (exit status 2 = drift found)"
if play "drift.yml (report)" "$out/drift-1.log" playbooks/drift.yml; then
  echo "drift.yml found no drift although drift was injected" >&2; exit 1
fi

step "6. drift.yml -e correct=true corrects it"
play "drift.yml -e correct=true" "$out/drift-2.log" playbooks/drift.yml -e correct=true

step "7. drift.yml again: no drift left"
play "drift.yml (after correction)" "$out/drift-3.log" playbooks/drift.yml

step "8. verify.yml"
play "verify.yml" "$out/verify.log" playbooks/verify.yml

step "9. start guest g1: its ISM function comes from the hostdev in lpar-a's domain XML"
zlab --lab "$lab" stop-guest g1 || true
zlab --lab "$lab" start-guest g1
zlab --lab "$lab" exec g1 -- smc_rnics | tee "$out/g1-smc_rnics.txt"
zlab --lab "$lab" exec g1 -- lspci | tee "$out/g1-lspci.txt"
grep -q '^ *605 ' "$out/g1-smc_rnics.txt" && summary+=("g1 sees FID 605: $(grep '^ *605 ' "$out/g1-smc_rnics.txt" | tr -s ' ')")

step "10. SMC-D devices: g1's passed-through FID 605 and lpar-b's own FID 606"
zlab --lab "$lab" exec g1 -- smcd device | tee "$out/g1-smcd-device.txt"
zlab --lab "$lab" exec lpar-b -- smcd device | tee "$out/lpar-b-smcd-device.txt"
grep -q '^0*606 ' "$out/lpar-b-smcd-device.txt" && summary+=("lpar-b SMC-D device: $(grep '^0*606 ' "$out/lpar-b-smcd-device.txt" | tr -s ' ')")

step "summary"
printf '%s\n' "${summary[@]}"
cat <<EOT

The lab '$lab' is still up. Explore it:
  eval "\$(make -s env)"
  zlab --lab $lab status
  zlab --lab $lab exec lpar-a -- lsqeth enc8200
  ansible -i $inv all -m ping
  ansible-playbook -i $inv playbooks/drift.yml
Logs and the inventory are in $out. Take the lab down with: make lab-down (or zlab down $lab)
EOT
