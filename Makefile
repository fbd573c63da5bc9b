# s390x.network developer entry points. The two set-up commands of README.md are `make demo` and
# `make test`; both install what they need (Debian packages, the pinned venv, the lab image) and
# are safe to run again.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV        ?= $(CURDIR)/.venv
PY          := $(VENV)/bin/python
# ansible-core 2.21 needs Python >= 3.12 on the controller: prefer 3.13, then 3.12.
BASE_PYTHON ?= $(firstword $(wildcard /root/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.12*/bin/python3) $(shell command -v python3.13 python3.12 2>/dev/null))
COLL_ROOT   := $(CURDIR)/.cache/collections
COLL_LINK   := $(COLL_ROOT)/ansible_collections/s390x/network
STAMPS      := $(CURDIR)/.cache/stamps
APT_PACKAGES := git graphviz rsync ethtool netplan.io

# Makefile fragments of the development tools (mk/zlab.mk: the emulated lab) add targets and
# their Debian packages (ZLAB_APT_PACKAGES), so they are read before the targets below.
-include mk/*.mk

export ANSIBLE_COLLECTIONS_PATH := $(COLL_ROOT)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PATH := $(VENV)/bin:$(PATH)

.PHONY: get-pip-cache help setup venv apt-deps collection-link env sanity lint lint-dev units test test-zlab test-molecule \
	test-molecule-emulated test-real-kernel test-real-kernel-linux7 \
        build install demo clean changelog-lint new-module

help:
	@echo "make demo    - set up and run the main job against the built-in emulated lab"
	@echo "make test    - set up and run every test tier (lint, sanity, Galaxy import, unit, ansible-core matrix, zlab, molecule)"
	@echo "make test-matrix - ansible-core 2.14/2.16/2.18/2.20 sanity, the 2.14 and Python 3.6 unit runs, vermin"
	@echo "make build   - build the Galaxy artifact s390x-network-<version>.tar.gz"
	@echo "make install - install the built artifact into build/collections"
	@echo "make lab-up / lab-down - start / remove the built-in emulated lab"
	@echo "make test-ee - build the execution environment and run site.yml in it against a lab"
	@echo "make new-module DOMAIN=d NAME=n - write the files of a new module (docs/contributing.md)"

$(STAMPS):
	mkdir -p $@

# Debian packages the toolchain and the lab need (installed once per package list).
apt-deps: $(STAMPS)/apt-$(shell echo $(APT_PACKAGES) $(ZLAB_APT_PACKAGES) | md5sum | cut -c1-12)
$(STAMPS)/apt-%: | $(STAMPS)
	@missing=$$(for p in $(APT_PACKAGES) $(ZLAB_APT_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	touch $@

venv: $(VENV)/.stamp-$(shell md5sum requirements-dev.txt zlab/pyproject.toml 2>/dev/null | md5sum | cut -c1-12)
$(VENV)/.stamp-%:
	@test -n "$(BASE_PYTHON)" || { echo "no Python 3.12+ found for the venv" >&2; exit 1; }
	test -x $(PY) || $(BASE_PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	if [ -f zlab/pyproject.toml ]; then $(PY) -m pip install -q -e zlab; fi
	rm -f $(VENV)/.stamp-*
	touch $@

# The working tree, visible to Ansible as s390x.network.
# ansible-test bootstraps pip in its sanity venvs with get-pip.py from a host we cannot reach.
get-pip-cache: venv
	@v=$$(sed -n "s/.*pip='\([0-9.]*\)'.*/\1/p" $(VENV)/lib/python3*/site-packages/ansible_test/_internal/python_requirements.py | head -1); \
	f=$(HOME)/.ansible/test/cache/get_pip_$${v//./_}.py; mkdir -p $$(dirname $$f); \
	cmp -s scripts/get_pip_offline.py $$f || cp scripts/get_pip_offline.py $$f

collection-link: $(COLL_LINK)
$(COLL_LINK):
	mkdir -p $(dir $@)
	ln -sfn $(CURDIR) $@

setup: apt-deps venv collection-link get-pip-cache

env:
	@echo "export ANSIBLE_COLLECTIONS_PATH=$(COLL_ROOT)"
	@echo "export ANSIBLE_CONFIG=$(CURDIR)/ansible.cfg"
	@echo "export PATH=$(VENV)/bin:\$$PATH"

sanity: setup
	scripts/sanity.sh

lint: setup
	yamllint -s .
	black --check -q $$(git ls-files --cached --others --exclude-standard '*.py')
	cd $(COLL_LINK) && ansible-lint --offline --profile production
	antsibull-changelog lint

# zlab and the benchmarks are development tools, not collection content: compiled and pyflakes-clean.
lint-dev: setup
	@files=$$(git ls-files --cached --others --exclude-standard 'zlab/*.py' 'benchmarks/*.py'); \
	if [ -n "$$files" ]; then $(PY) -m compileall -q $$files && $(PY) -m pyflakes $$files; else echo "no dev python files"; fi

units: setup
	$(CURDIR)/scripts/pytest-tier.sh unit \
	  $(PY) -m pytest -q -p no:cacheprovider --import-mode=importlib -n 2 tests/unit

test-zlab: setup
	@if [ -d zlab/tests/conformance ]; then \
	  $(CURDIR)/scripts/pytest-tier.sh zlab-conformance \
	    $(PY) -m pytest -q -p no:cacheprovider zlab/tests/conformance; \
	else echo "tier zlab-conformance: not present yet"; fi

# Molecule scenarios on the emulated lab (each brings its own CPC up and down with zlab); the
# real-kernel one runs next to the others (scripts/molecule-tier.sh, MOLECULE_BACKGROUND). The
# scenario enterprise runs with older ansible-core releases (mk/enterprise.mk), not here.
# ANSIBLE_HOME in the tree: molecule installs the collection there, not into the shared ~/.ansible.
MOLECULE_SCENARIOS ?= $(sort $(filter-out resources enterprise,$(notdir $(patsubst %/molecule.yml,%,$(wildcard molecule/*/molecule.yml)))))
# The scenarios whose hosts boot a real s390x kernel under QEMU TCG.
REAL_KERNEL_SCENARIOS := realkernel
test-molecule: setup zlab-image
	scripts/molecule-tier.sh $(MOLECULE_SCENARIOS)

test-molecule-emulated: setup zlab-image
	MOLECULE_BACKGROUND= scripts/molecule-tier.sh $(filter-out $(REAL_KERNEL_SCENARIOS),$(MOLECULE_SCENARIOS))

# Everything on Debian 13's 6.12 kernel, one after the other (one or two TCG guests at a time): the
# real-kernel lab tests, then the real-kernel scenarios. `make test` runs it in the background
# while the emulated lab tests and scenarios run (scripts/test-tiers.sh).
test-real-kernel: setup zlab-image
	$(PY) -m pytest -q --durations=10 $(REAL_KERNEL_612_LAB_TESTS)
	MOLECULE_BACKGROUND= MOLECULE_ANSIBLE_HOME=$(CURDIR)/.cache/ansible-home-real-kernel scripts/molecule-tier.sh $(REAL_KERNEL_SCENARIOS)

# Debian's Linux 7.x as shipped and rebuilt with DIBS and SMC, three TCG guests (zlab/README.md);
# builds the image with its kernel first when it is not cached.
test-real-kernel-linux7: setup zlab-image-linux7
	$(PY) -m pytest -q --durations=10 $(LINUX7_LAB_TESTS)

# Every tier that exists, cheapest first, with each tier's wall time (scripts/test-tiers.sh).
test: setup
	scripts/test-tiers.sh

VERSION := $(shell sed -n 's/^version: *//p' galaxy.yml)
ARTIFACT := s390x-network-$(VERSION).tar.gz

build: setup
	ansible-galaxy collection build --force --output-path . .

install: build
	rm -rf build/collections
	ANSIBLE_COLLECTIONS_PATH=$(CURDIR)/build/collections \
	  ansible-galaxy collection install --offline --force -p build/collections $(ARTIFACT)
	ANSIBLE_COLLECTIONS_PATH=$(CURDIR)/build/collections ansible-galaxy collection list s390x.network
	@echo "installed into build/collections; use ANSIBLE_COLLECTIONS_PATH=$(CURDIR)/build/collections"

# The files of a new module in the collection's shape; the completeness test then names what is left.
new-module: venv
	$(PY) scripts/new-module.py "$(DOMAIN)" "$(NAME)"

changelog-lint: setup
	antsibull-changelog lint

demo: setup zlab-image
	scripts/demo.sh

clean:
	rm -rf build .cache $(ARTIFACT)

