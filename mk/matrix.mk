# The ansible-core support matrix and the target Python 3.6 checks (scripts/core-matrix.sh).
# Included by the main Makefile (VENV, collection-link); `make test-matrix` runs it all.
#
# What runs where (the newest core, 2.21 in .venv on Python 3.13, runs all of `ansible-test sanity`
# in `make sanity` and all unit tests in `make units`):
#
#   ansible-core  controller Python  sanity (no ignore files)                      unit tests
#   2.14          3.9                 MATRIX_SANITY_TESTS; compile also on 3.6-3.8  tests/unit
#   2.16          3.10                MATRIX_SANITY_TESTS; compile also on 3.6-3.9  - (MATRIX_UNIT_CORES)
#   2.18          3.11                MATRIX_SANITY_TESTS; compile also on 3.8-3.10 -
#   2.20          3.12                MATRIX_SANITY_TESTS; compile also on 3.9-3.11 -
#   target Python 3.6 with ansible-core 2.16's module_utils: the host-side unit tests (units-py36)
#   vermin on Python 3.13: no syntax or standard library newer than 3.6 in the host-side files
#
# Each core runs on the oldest controller Python it supports, so the controller code (filters,
# plugin_utils) is compiled and imported on 3.9, 3.10, 3.11, 3.12 and 3.13 and unit-tested on 3.9,
# 3.10 and 3.13. "compile also on" is every target-only Python of that core from 3.6 on (pyenv has
# 3.6 to 3.13). Host-side files (modules and every module_utils file a module imports) are found by
# following the imports from plugins/modules (scripts/host-side.py): HOST_SIDE_FILES below; the other
# module_utils files (CONTROLLER_MODULE_UTILS), the filters and plugin_utils are controller code.
# `make matrix-host-files` lists both.
#
# Pins: tests/matrix/core-X.Y.txt (ansible-core X.Y at its newest patch release with its
# dependencies, pytest, pytest-xdist, hypothesis), tests/matrix/py36.txt, tests/matrix/vermin.txt;
# `make matrix-lock` re-pins them from the package index.

PYENV_VERSIONS ?= $(or $(PYENV_ROOT),$(HOME)/.pyenv)/versions
# $(call matrix_python,3.9): the newest pyenv build of Python 3.9, else python3.9 from PATH
matrix_python = $(or $(lastword $(sort $(wildcard $(PYENV_VERSIONS)/$(1).*/bin/python$(1)))),$(shell command -v python$(1) 2>/dev/null))

MATRIX_CORES       ?= 2.14 2.16 2.18 2.20
MATRIX_PYTHON_2.14 ?= 3.9
MATRIX_PYTHON_2.16 ?= 3.10
MATRIX_PYTHON_2.18 ?= 3.11
MATRIX_PYTHON_2.20 ?= 3.12
# cores whose unit tests run here (the newest core's run in `make units`); tests/unit/collection (checks
# of the repository and the artifact, not of ansible-core) runs only there
MATRIX_UNIT_CORES  ?= 2.14
# the Python versions linked into .cache/matrix/bin for ansible-test (compile on target Pythons)
MATRIX_PYTHONS     ?= 3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13
# the ansible-core whose module_utils the Python 3.6 run uses: the newest that runs modules on 3.6
PY36_CORE          ?= 2.16
VERMIN_PYTHON      ?= 3.13
# sanity tests of every core in the matrix; 2 jobs at a time on a 2-core machine
export MATRIX_SANITY_TESTS ?= compile import validate-modules ansible-doc yamllint
export MATRIX_JOBS ?= 2
# longest first (units-py36: about 2.5 min, a sanity job 1 to 2 min, units-X.Y 1.5 min), so that
# the two lanes end together
MATRIX_RUN ?= units-py36 $(foreach c,$(call matrix_reverse,$(MATRIX_CORES)),sanity-$(c)) \
	$(foreach c,$(MATRIX_UNIT_CORES),units-$(c)) vermin
matrix_reverse = $(if $(1),$(call matrix_reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))

# the import walk (evaluated only where used)
HOST_SIDE_FILES = $(shell python3 scripts/host-side.py host)
CONTROLLER_MODULE_UTILS = $(shell python3 scripts/host-side.py controller)

MATRIX_DIR   := $(CURDIR)/.cache/matrix
PY36_VENV    := $(CURDIR)/.cache/py36
VERMIN_VENV  := $(CURDIR)/.cache/vermin
# every core with a pin file has a venv rule (MATRIX_CORES says which run)
MATRIX_PINNED := $(patsubst tests/matrix/core-%.txt,%,$(wildcard tests/matrix/core-*.txt))

# a stamp names the pins and the interpreter it was built from: $(call md5of,FILES,TEXT)
md5of = $(shell (cat $(1); echo "$(2)") | md5sum | cut -c1-12)
core_stamp = $(CURDIR)/.cache/core-$(1)/.stamp-$(call md5of,tests/matrix/core-$(1).txt,$(call matrix_python,$(MATRIX_PYTHON_$(1))))
PY36_STAMP := $(PY36_VENV)/.stamp-$(call md5of,tests/matrix/py36.txt tests/matrix/core-$(PY36_CORE).txt,$(call matrix_python,3.6))
VERMIN_STAMP := $(VERMIN_VENV)/.stamp-$(call md5of,tests/matrix/vermin.txt,$(call matrix_python,$(VERMIN_PYTHON)))

.PHONY: test-matrix test-py36 matrix-venvs matrix-pythons matrix-get-pip matrix-host-files matrix-lock

# A venv of ansible-core X.Y on its controller Python, installed from its pins only.
define matrix_core_venv
$(call core_stamp,$(1)):
	@py="$(call matrix_python,$(MATRIX_PYTHON_$(1)))"; \
	test -n "$$$$py" && "$$$$py" -c '' 2>/dev/null || { echo "no Python $(MATRIX_PYTHON_$(1)) for ansible-core $(1) (pyenv install $(MATRIX_PYTHON_$(1)))" >&2; exit 1; }; \
	rm -rf $(CURDIR)/.cache/core-$(1) && "$$$$py" -m venv $(CURDIR)/.cache/core-$(1)
	$(CURDIR)/.cache/core-$(1)/bin/python -m pip install -q --upgrade pip
	$(CURDIR)/.cache/core-$(1)/bin/python -m pip install -q -r tests/matrix/core-$(1).txt
	touch $$@
endef
$(foreach c,$(MATRIX_PINNED),$(eval $(call matrix_core_venv,$(c))))

# Python 3.6 as on a managed host: pytest 7.0 and, as the package `ansible`, only the module_utils of
# ansible-core $(PY36_CORE) (what AnsiballZ ships to a host), copied from that core's venv.
$(PY36_STAMP): $(call core_stamp,$(PY36_CORE))
	@py="$(call matrix_python,3.6)"; \
	test -n "$$py" && "$$py" -c '' 2>/dev/null || { echo "no Python 3.6 (pyenv install 3.6)" >&2; exit 1; }; \
	rm -rf $(PY36_VENV) && "$$py" -m venv $(PY36_VENV)
	$(PY36_VENV)/bin/python -m pip install -q --upgrade pip
	$(PY36_VENV)/bin/python -m pip install -q -r tests/matrix/py36.txt
	@site=$$($(PY36_VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); \
	core=$$($(CURDIR)/.cache/core-$(PY36_CORE)/bin/python -c 'import os, ansible; print(os.path.dirname(ansible.__file__))'); \
	rm -rf $$site/ansible && mkdir -p $$site/ansible && cp -r $$core/module_utils $$site/ansible/ && \
	find $$site/ansible -name __pycache__ -prune -exec rm -rf {} + && \
	echo '# ansible-core $(PY36_CORE) module_utils only, as AnsiballZ ships them to a managed host' > $$site/ansible/__init__.py
	touch $@

$(VERMIN_STAMP):
	@py="$(call matrix_python,$(VERMIN_PYTHON))"; \
	test -n "$$py" && "$$py" -c '' 2>/dev/null || { echo "no Python $(VERMIN_PYTHON) for vermin" >&2; exit 1; }; \
	rm -rf $(VERMIN_VENV) && "$$py" -m venv $(VERMIN_VENV)
	$(VERMIN_VENV)/bin/python -m pip install -q -r tests/matrix/vermin.txt
	touch $@

# pythonX.Y of pyenv for ansible-test (pyenv's shims run only the global version).
matrix-pythons:
	@mkdir -p $(MATRIX_DIR)/bin; \
	$(foreach v,$(MATRIX_PYTHONS),p="$(call matrix_python,$(v))"; if [ -n "$$p" ]; then ln -sfn "$$p" $(MATRIX_DIR)/bin/python$(v); else rm -f $(MATRIX_DIR)/bin/python$(v); fi;)

# ansible-test of each core bootstraps pip in its sanity venvs with get-pip.py of the pip versions
# it names (python_requirements.py), from a host we cannot reach: the offline stand-in under each name.
matrix-get-pip: $(foreach c,$(MATRIX_CORES),$(call core_stamp,$(c)))
	@mkdir -p $(HOME)/.ansible/test/cache; \
	for c in $(MATRIX_CORES); do \
	  for v in $$(sed -n "s/.*pip='\([0-9.]*\)'.*/\1/p" $(CURDIR)/.cache/core-$$c/lib/python3*/site-packages/ansible_test/_internal/python_requirements.py | sort -u); do \
	    f=$(HOME)/.ansible/test/cache/get_pip_$${v//./_}.py; cmp -s scripts/get_pip_offline.py $$f || cp scripts/get_pip_offline.py $$f; \
	  done; \
	done

matrix-venvs: $(foreach c,$(MATRIX_CORES),$(call core_stamp,$(c))) $(PY36_STAMP) $(VERMIN_STAMP) matrix-pythons matrix-get-pip

# the venvs are built $(MATRIX_JOBS) at a time too (pip is mostly waiting on the network)
test-matrix: collection-link
	$(MAKE) --no-print-directory -j $(MATRIX_JOBS) matrix-venvs
	scripts/core-matrix.sh run $(MATRIX_RUN)

# only the target Python 3.6 checks
test-py36: $(PY36_STAMP) $(VERMIN_STAMP) matrix-pythons collection-link
	scripts/core-matrix.sh run units-py36 vermin

matrix-host-files:
	@echo "host-side (Python 3.6 and newer):"; printf '  %s\n' $(HOST_SIDE_FILES)
	@echo "controller-only module_utils (the controller's Python):"; printf '  %s\n' $(CONTROLLER_MODULE_UTILS)

# Re-pin from the package index: the newest patch release of each core and what works on its Python.
matrix-lock:
	$(foreach c,$(MATRIX_PINNED),scripts/core-matrix.sh lock core-$(c) "$(call matrix_python,$(MATRIX_PYTHON_$(c)))" "ansible-core~=$(c).0" pytest pytest-xdist hypothesis &&) true
	scripts/core-matrix.sh lock py36 "$(call matrix_python,3.6)" "pytest~=7.0.0" hypothesis PyYAML
	scripts/core-matrix.sh lock vermin "$(call matrix_python,$(VERMIN_PYTHON))" vermin
