# galaxy-import: the artifact `make build` writes, through galaxy-importer - the import Galaxy and
# Automation Hub run on every upload - with its ansible-lint run; fails on any ERROR or WARNING line
# of its output (scripts/galaxy-import.sh). galaxy-importer and what it runs (ansible-core,
# ansible-lint) live in a venv of their own, pinned by requirements-galaxy.txt; it is made anew
# when that file changes, so that it holds exactly the pinned tree. Only making the venv uses the
# network (the package index); the import runs without network.
# Included by the main Makefile, which defines BASE_PYTHON, `build` and ARTIFACT.
GALAXY_VENV ?= $(CURDIR)/.cache/venv-galaxy
GALAXY_REQUIREMENTS := requirements-galaxy.txt

.PHONY: galaxy-venv galaxy-import

galaxy-venv: $(GALAXY_VENV)/.stamp-$(shell md5sum $(GALAXY_REQUIREMENTS) 2>/dev/null | md5sum | cut -c1-12)
$(GALAXY_VENV)/.stamp-%:
	@test -n "$(BASE_PYTHON)" || { echo "no Python 3.12+ found for the galaxy-importer venv" >&2; exit 1; }
	rm -rf $(GALAXY_VENV)
	$(BASE_PYTHON) -m venv $(GALAXY_VENV)
	$(GALAXY_VENV)/bin/python -m pip install -q --disable-pip-version-check -r $(GALAXY_REQUIREMENTS)
	$(GALAXY_VENV)/bin/python -m pip check
	touch $@

galaxy-import: build galaxy-venv
	scripts/galaxy-import.sh $(GALAXY_VENV) $(ARTIFACT)
