#!/bin/sh
# The package manager of the execution environment's build on a Debian base. ansible-builder's
# scripts (assemble, install-from-bindep) call their package manager as `PKGMGR install -y [OPTS]
# PACKAGE...` and `PKGMGR clean all`, the dnf way; execution-environment.yml copies this file into
# the image and names it in options.package_manager_path, so those calls run apt-get.
set -eu
command="${1:-}"
[ $# -gt 0 ] && shift
case "$command" in
  install)
    packages=""
    skip=0
    for arg in "$@"; do
      if [ "$skip" = 1 ]; then skip=0; continue; fi
      case "$arg" in
        --setopt) skip=1 ;;  # dnf's `--setopt NAME=VALUE` (PKGMGR_OPTS): no apt-get equivalent
        -*) ;;  # -y and other dnf options: apt-get gets its own below
        *) packages="$packages $arg" ;;
      esac
    done
    [ -n "$packages" ] || exit 0
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086  # one word per package
    apt-get install -y -qq --no-install-recommends $packages
    ;;
  clean)
    apt-get clean
    rm -rf /var/lib/apt/lists/*
    ;;
  *)
    echo "ee-pkgmgr: unsupported command '$command' (install, clean)" >&2
    exit 2
    ;;
esac
