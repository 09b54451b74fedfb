# Two commands: `make run` (JupyterLab on notebooks/ with msnb) and `make test`.
# The venv lives in .venv; a stamp file keeps a second run from reinstalling
# until pyproject.toml changes.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
STAMP := $(VENV)/.msnb-installed
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
HOST ?= 127.0.0.1

.PHONY: run test

run: $(STAMP)
	GLOG_v=3 $(VENV)/bin/jupyter lab --no-browser --ServerApp.ip=$(HOST) \
		--ServerApp.root_dir=notebooks $(ALLOW_ROOT)

test: $(STAMP)
	GLOG_v=3 $(VENV)/bin/python -m pytest

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --upgrade pip
	$(VENV)/bin/python -m pip install -e ".[test,notebooks]"
	touch $@
