#!/usr/bin/env bash
# Runs the molecule scenarios given as arguments one after the other. The ones named in
# MOLECULE_BACKGROUND (default: realkernel, a QEMU TCG guest that keeps one core busy for minutes
# while the emulated-lab scenarios mostly wait on SSH) run at the same time in the background, each
# with an ANSIBLE_HOME and a log of its own; the log is printed when the scenario ends. Exit status:
# 0 when every scenario passed.
set -uo pipefail
home="${MOLECULE_ANSIBLE_HOME:-$PWD/.cache/ansible-home}"
background=" ${MOLECULE_BACKGROUND-realkernel} "
declare -A pids logs starts
for s in "$@"; do
  if [[ $background == *" $s "* ]]; then
    logs[$s]="$PWD/.cache/molecule-$s.log"
    starts[$s]=$(date +%s)
    echo "=== molecule scenario $s started in the background (log: ${logs[$s]})"
    ANSIBLE_HOME="$home-$s" molecule test -s "$s" > "${logs[$s]}" 2>&1 &
    pids[$s]=$!
  fi
done
rc=0
for s in "$@"; do
  [[ $background == *" $s "* ]] && continue
  echo "=== molecule scenario $s"
  start=$(date +%s)
  if ANSIBLE_HOME="$home" molecule test -s "$s"; then
    echo "=== molecule scenario $s passed in $(( $(date +%s) - start )) s"
  else
    echo "=== molecule scenario $s FAILED after $(( $(date +%s) - start )) s"
    rc=1
    break
  fi
done
for s in "${!pids[@]}"; do
  if wait "${pids[$s]}"; then status=passed; else status=FAILED; rc=1; fi
  cat "${logs[$s]}"
  echo "=== molecule scenario $s $status in $(( $(date +%s) - starts[$s] )) s (in the background)"
done
exit $rc
