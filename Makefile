# Two commands: `make run` (JupyterLab on notebooks/ with msnb) and `make test`.
# The venv lives in .venv; a stamp file keeps a second run from reinstalling
# until pyproject.toml changes.  The JupyterLab extension (labextension/) is
# rebuilt when its sources change and linked into the venv's JupyterLab.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
STAMP := $(VENV)/.msnb-installed
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
HOST ?= 127.0.0.1
# pytest workers: the suite runs on two (--dist loadscope keeps each file on one worker)
TEST_WORKERS ?= 2
VENV_PATH := PATH=$(abspath $(VENV))/bin:$$PATH
LABEXT := msnb/labextension/package.json
LABEXT_SRC := $(wildcard labextension/src/*.ts labextension/schema/*.json labextension/style/*) \
	labextension/package.json labextension/package-lock.json

.PHONY: run test browser

run: $(STAMP) $(LABEXT)
	GLOG_v=3 $(VENV)/bin/jupyter lab --no-browser --ServerApp.ip=$(HOST) \
		--ServerApp.root_dir=notebooks $(ALLOW_ROOT)

test: $(STAMP) $(LABEXT) browser
	cd labextension && npx jest
	GLOG_v=3 $(VENV)/bin/python -m pytest -n $(TEST_WORKERS) --dist loadscope

browser:
	bash .ci/install-browser.sh

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --upgrade pip
	$(VENV_PATH) $(VENV)/bin/python -m pip install -e ".[test,notebooks]"
	touch $@

$(LABEXT): $(STAMP) $(LABEXT_SRC)
	cd labextension && npm install --no-audit --no-fund && $(VENV_PATH) npm run build
	$(VENV_PATH) $(VENV)/bin/jupyter labextension develop --overwrite .
	touch $@
