# The execution environment of execution-environment.yml, built and run for real (README.md,
# "Running it from AWX / Ansible Automation Platform"):
#   make ee-build   the base image (Debian 12 made with mmdebstrap) and the EE (ansible-builder, podman)
#   make test-ee    both, then playbooks/site.yml from inside the EE against the built-in lab
#                   (converge, then a second run with changed=0 on every host); lab EE_LAB,
#                   EE_PY36_HOSTS as in scripts/ee-test.sh
#   make ee-clean   removes both images and .cache/ee
# Included by the main Makefile, which defines setup and VENV; zlab-image comes from mk/zlab.mk.
VENV ?= .venv
EE_LAB ?= ee-test
# Hosts of the built-in lab that run their modules with the distribution's Python 3.6
# (zlab_python "3.6"), e.g. EE_PY36_HOSTS="lpar-b g1"; none by default.
EE_PY36_HOSTS ?=
# Debian packages: podman with runc (scripts/ee-test.sh runs podman with runc) and mmdebstrap.
EE_APT_PACKAGES ?= podman runc conmon golang-github-containers-common mmdebstrap

.PHONY: ee-deps ee-build test-ee ee-clean

# Installs the apt packages once (apt-get update only when something is missing).
ee-deps:
	@missing=""; for p in $(EE_APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "ee-deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "ee-deps: all present"; fi

ee-build: setup ee-deps
	VENV=$(VENV) scripts/ee-test.sh build

test-ee: setup ee-deps zlab-image
	VENV=$(VENV) EE_LAB=$(EE_LAB) EE_PY36_HOSTS="$(EE_PY36_HOSTS)" scripts/ee-test.sh

ee-clean:
	-podman rmi localhost/s390x-network-ee:latest localhost/s390x-network-ee-base:bookworm
	rm -rf .cache/ee
