# The enterprise controller: the molecule scenario `enterprise` (molecule/enterprise) runs the main
# job (site.yml, a second run with changed=0, drift.yml report and correct, verify.yml) with
# ansible-core 2.16, and 2.14, on the controller against RHEL 8.8 and SLES 15 SP6 hosts whose Python
# is the distribution's 3.6 (zlab_python), found by Ansible's interpreter discovery.
# Included by the main Makefile (VENV, setup, zlab-image); the ansible-core venvs are those of the
# support matrix (mk/matrix.mk: .cache/core-X.Y from tests/matrix/core-X.Y.txt).
#
#   make test-enterprise        ansible-core 2.16: `molecule test -s enterprise` with molecule added
#                               to .cache/core-2.16 (molecule/enterprise/requirements-molecule.txt)
#   make test-enterprise-2.14   ansible-core 2.14, which molecule does not support: the scenario's
#                               sequence and files run by scripts/enterprise-scenario.sh
#   make test-enterprise-all    both at once, each in a lab of its own (m-enterprise, m-enterprise-214)
ENTERPRISE_MOLECULE_REQ := molecule/enterprise/requirements-molecule.txt
ENTERPRISE_216 := $(CURDIR)/.cache/core-2.16
ENTERPRISE_STAMP = $(ENTERPRISE_216)/.stamp-enterprise-$(shell cat tests/matrix/core-2.16.txt $(ENTERPRISE_MOLECULE_REQ) zlab/pyproject.toml 2>/dev/null | md5sum | cut -c1-12)

.PHONY: enterprise-venv test-enterprise test-enterprise-2.14 test-enterprise-all

# The matrix's 2.16 venv first (its rule recreates the venv when its pins change, which drops the
# stamp below), then molecule and zlab (create.yml and the scenario call the zlab of the venv).
enterprise-venv:
	@test -n "$(call core_stamp,2.16)" || { echo "enterprise-venv: mk/matrix.mk (core_stamp) is missing" >&2; exit 1; }
	$(MAKE) --no-print-directory $(call core_stamp,2.16)
	$(MAKE) --no-print-directory $(ENTERPRISE_STAMP)

$(ENTERPRISE_216)/.stamp-enterprise-%:
	$(ENTERPRISE_216)/bin/python -m pip install -q -r tests/matrix/core-2.16.txt -r $(ENTERPRISE_MOLECULE_REQ)
	$(ENTERPRISE_216)/bin/python -m pip install -q -e zlab
	rm -f $(ENTERPRISE_216)/.stamp-enterprise-*
	touch $@

# molecule, ansible-playbook and zlab of the 2.16 venv first on PATH; an ANSIBLE_HOME of its own.
test-enterprise: setup zlab-image enterprise-venv
	@start=$$(date +%s); \
	if PATH=$(ENTERPRISE_216)/bin:$$PATH ANSIBLE_HOME=$(CURDIR)/.cache/ansible-home-enterprise \
	    $(ENTERPRISE_216)/bin/molecule test -s enterprise; then \
	  echo "=== molecule scenario enterprise (ansible-core 2.16) passed in $$(( $$(date +%s) - start )) s"; \
	else \
	  echo "=== molecule scenario enterprise (ansible-core 2.16) FAILED after $$(( $$(date +%s) - start )) s"; exit 1; \
	fi

test-enterprise-2.14: setup zlab-image
	@test -n "$(call core_stamp,2.14)" || { echo "test-enterprise-2.14: mk/matrix.mk (core_stamp) is missing" >&2; exit 1; }
	$(MAKE) --no-print-directory $(call core_stamp,2.14)
	scripts/enterprise-scenario.sh $(CURDIR)/.cache/core-2.14 m-enterprise-214

# 2.14 in the background (its log printed when it ends), 2.16 in the foreground.
test-enterprise-all: setup zlab-image enterprise-venv
	$(MAKE) --no-print-directory $(call core_stamp,2.14)
	@log=$(CURDIR)/.cache/enterprise-2.14.log; \
	scripts/enterprise-scenario.sh $(CURDIR)/.cache/core-2.14 m-enterprise-214 > $$log 2>&1 & pid=$$!; \
	$(MAKE) --no-print-directory test-enterprise; rc=$$?; \
	wait $$pid; rc14=$$?; cat $$log; \
	[ $$rc -eq 0 ] && [ $$rc14 -eq 0 ]
