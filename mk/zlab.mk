# zlab: the emulated IBM Z CPC (see zlab/README.md).
# Included by the main Makefile, which defines VENV and PY; the defaults below
# let `make -f mk/zlab.mk TARGET` work on its own too.
VENV ?= .venv
PY ?= $(VENV)/bin/python
ZLAB ?= $(VENV)/bin/zlab
ZLAB_LAB ?= inventories/lab
ZLAB_LAB_NAME ?= lab
# Debian packages the lab needs on the controller (this machine); qemu-system-misc, qemu-utils
# and arch-test: real-kernel hosts (zlab_kind: debian13-s390x) and their image; the cross compiler,
# flex, bison, libelf-dev and dwarves: its smc.ko with loopback-ism (zlab/zlab/smc_lo_module.py);
# dpkg-dev (dpkg-scanpackages): the local repository of older builds where the mirror's pool lags
# behind its index (zlab/zlab/debian_pool.py).
ZLAB_APT_PACKAGES ?= mmdebstrap fuse3 libfuse3-3 iproute2 openssh-client util-linux procps qemu-user-static \
	qemu-system-misc qemu-utils arch-test gcc-s390x-linux-gnu flex bison libelf-dev bc dwarves dpkg-dev

.PHONY: zlab-deps zlab-install zlab-image zlab-image-s390x zlab-image-linux7 lab-up lab-down lab-status test-zlab-lab zlab-bench \
	oldest-core-venv test-zlab-lab-emulated

# Installs the apt packages once (apt-get update only when something is missing).
zlab-deps:
	@missing=""; for p in $(ZLAB_APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "zlab-deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "zlab-deps: all present"; fi

# Editable install of the zlab distribution into the venv (console script .venv/bin/zlab).
zlab-install:
	@test -x $(ZLAB) || $(PY) -m pip install -q -e zlab

zlab-image: setup zlab-deps zlab-install
	$(ZLAB) image build

# The disk and kernel of real-kernel hosts (zlab up and the lab test build it on first use too).
zlab-image-s390x: setup zlab-deps zlab-install
	$(ZLAB) image build --kind debian13-s390x

# The disk of the Linux 7.x hosts: Debian's trixie-backports kernel and the same kernel rebuilt with
# DIBS and SMC (zlab.smc_dibs_kernel: a cross build of the whole kernel, most of the time).
zlab-image-linux7: setup zlab-deps zlab-install
	$(ZLAB) image build --kind debian13-linux7-smc-s390x

lab-up: setup zlab-image
	$(ZLAB) up $(ZLAB_LAB) --name $(ZLAB_LAB_NAME)

lab-down: zlab-install
	$(ZLAB) down $(ZLAB_LAB_NAME)

lab-status: zlab-install
	$(ZLAB) status --all

# The oldest ansible-core the collection supports (meta/runtime.yml): its venv of the support matrix
# (mk/matrix.mk) runs drift.yml in zlab/tests/lab/test_drift_lost_hosts.py next to the newest.
ZLAB_OLDEST_CORE := $(shell sed -n 's/^requires_ansible: *">= *\([0-9]*\.[0-9]*\).*/\1/p' meta/runtime.yml)

# The lab tests whose hosts boot a real s390x kernel under QEMU TCG (a core busy per guest).
REAL_KERNEL_LAB_TESTS := zlab/tests/lab/test_real_kernel.py zlab/tests/lab/test_real_kernel_smcr.py \
	zlab/tests/lab/test_real_kernel_linux7.py
# Debian 13's 6.12, the ones `make test` runs (test-real-kernel).
REAL_KERNEL_612_LAB_TESTS := zlab/tests/lab/test_real_kernel.py zlab/tests/lab/test_real_kernel_smcr.py
# Linux 7.x (test-real-kernel-linux7): not in `make test` yet, its kernel build takes about 34
# minutes of both cores on a fresh two-core machine (zlab/README.md).
LINUX7_LAB_TESTS := zlab/tests/lab/test_real_kernel_linux7.py

oldest-core-venv:
	@test -n "$(ZLAB_OLDEST_CORE)" -a -n "$(call core_stamp,$(ZLAB_OLDEST_CORE))" || { echo "test-zlab-lab: no oldest ansible-core venv rule (meta/runtime.yml, mk/matrix.mk)" >&2; exit 1; }
	$(MAKE) --no-print-directory $(call core_stamp,$(ZLAB_OLDEST_CORE))

# Every lab test.
test-zlab-lab: zlab-image oldest-core-venv
	$(PY) -m pytest zlab/tests/lab -q --durations=15

# The lab tests on emulated hosts only; `make test` runs the real-kernel ones in test-real-kernel.
test-zlab-lab-emulated: zlab-image oldest-core-venv
	$(PY) -m pytest zlab/tests/lab -q --durations=15 $(addprefix --ignore=,$(REAL_KERNEL_LAB_TESTS))

zlab-bench: zlab-image
	$(PY) benchmarks/zlab_up.py
