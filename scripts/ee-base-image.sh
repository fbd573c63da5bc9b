#!/usr/bin/env bash
# The base image of the execution environment, made on this machine from Debian packages: a
# minimal Debian 12 (bookworm) root built with mmdebstrap (as zlab builds the lab's host images)
# and imported into podman. No container registry is needed.
#
# Usage: scripts/ee-base-image.sh [IMAGE]     (default: localhost/s390x-network-ee-base:bookworm)
#
# The image carries the label s390x-network.ee-base.key, a checksum of this script (which holds
# the package list and the image settings) and the Debian mirrors used. When an image of that name
# with the same key exists, nothing is built. EE_REBUILD=1 builds it anyway.
#
# What ansible-builder needs of a base (execution-environment.yml): python3 at /usr/bin/python3
# with pip (Debian's python3-pip; the definition skips ansible-builder's ensurepip step), the
# venv module, and apt. Everything else (ansible-core, ansible-runner, bindep.txt's packages) the
# EE build installs.
set -euo pipefail
image="${1:-localhost/s390x-network-ee-base:bookworm}"
suite=bookworm
packages=(python3 python3-pip python3-venv openssh-client ca-certificates)

for tool in mmdebstrap podman; do
  command -v "$tool" >/dev/null || { echo "ee-base-image: $tool is not installed (make ee-deps)" >&2; exit 1; }
done

# The machine's Debian mirrors for the suite (apt's own view of its sources), else deb.debian.org.
mirrors=()
if command -v apt-get >/dev/null; then
  # shellcheck disable=SC2016  # apt's own $(FIELD) placeholders
  while read -r site release; do
    case "$release" in
      "$suite" | "$suite"-updates | "$suite"-security) mirrors+=("deb $site $release main") ;;
    esac
  done < <(apt-get indextargets --format '$(SITE) $(RELEASE)' 'Identifier: Packages' 2>/dev/null | sort -u)
fi
if [ "${#mirrors[@]}" -eq 0 ]; then
  mirrors=("deb http://deb.debian.org/debian $suite main" "deb http://deb.debian.org/debian $suite-updates main"
    "deb http://deb.debian.org/debian-security $suite-security main")
fi

key="$( (cat "$0"; printf '%s\n' "${mirrors[@]}") | sha256sum | cut -c1-16)"
have="$(podman image inspect --format '{{ index .Labels "s390x-network.ee-base.key" }}' "$image" 2>/dev/null || true)"
if [ "$have" = "$key" ] && [ "${EE_REBUILD:-0}" != 1 ]; then
  echo "ee-base-image: $image is up to date (key $key)"
  exit 0
fi

work="$(mktemp -d /tmp/s390x-ee-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
echo "ee-base-image: building $suite root with mmdebstrap (${packages[*]}) from: ${mirrors[*]}"
# --customize-hook: apt's package lists are fetched again by the EE build (the package manager
# wrapper of execution-environment.yml runs apt-get update); documentation and locales are left out.
# shellcheck disable=SC2016  # "$1" is the root, expanded by mmdebstrap's hook shell
mmdebstrap --mode=root --variant=minbase --format=tar --quiet \
  --include="$(IFS=,; echo "${packages[*]}")" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  "$suite" "$work/root.tar" "${mirrors[@]}"
echo "ee-base-image: root built in $(( $(date +%s) - start )) s ($(du -m "$work/root.tar" | cut -f1) MB); importing into podman"
# LANG: ansible-core needs a UTF-8 locale (C.UTF-8 is part of Debian's libc).
# PIP_CERT: pip trusts the system's CA store (ca-certificates), as Debian's apt and Python do.
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["/bin/bash"]' \
  --change "LABEL s390x-network.ee-base.key=$key" \
  "$work/root.tar" "$image" >/dev/null
echo "ee-base-image: $image built in $(( $(date +%s) - start )) s (key $key)"
