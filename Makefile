# dpclust: the README's commands. `make book` builds the book, `make test` runs every test and notebook.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# BLAS threads are limited where it matters, inside the package's kernels (every estimator's fit runs on one
# BLAS thread: multithreaded BLAS is several times slower for its small matrix products), not here.

.PHONY: book build test lab check-render check-lab venv bench clean

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $(STAMP)

## make book: create the venv, install, execute every chapter and build the HTML book
book: build
	@echo
	@echo "The book is built. Open it in a browser:"
	@echo "  file://$(CURDIR)/_build/html/index.html"

build: $(STAMP)
	$(BIN)/jupyter-book build -W -n --keep-going .

## make test: unit and property tests, privacy audits, doctests and every notebook under nbval
test: $(STAMP)
	$(BIN)/python -m pytest tests dpclust_core dpclust_book book --doctest-modules --nbval-lax --nbval-current-env -q

## make lab: open the chapters in JupyterLab
lab: $(STAMP)
	$(BIN)/jupyter lab book/

## make check-render: read every built page in headless Chromium (offline, 1280 and 400 px) and fail on raw TeX,
## dead sliders, tracebacks, warnings, empty figures and outputs wider than the page; screenshots in _render/
check-render: $(STAMP)
	@command -v chromium >/dev/null || (export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
	@$(BIN)/python -c "import playwright" 2>/dev/null || $(BIN)/python -m pip install --quiet -r tests/book/render/requirements.txt
	$(BIN)/python tests/book/render/check_render.py _build/html

## make check-lab: run every chapter live in JupyterLab in headless Chromium (Run All, then move every slider);
## fails on an error or warning in a cell, a slider that does not redraw, or a move that shows two figures
check-lab: $(STAMP)
	@$(BIN)/python -c "import playwright" 2>/dev/null || $(BIN)/python -m pip install --quiet -r tests/book/render/requirements.txt
	$(BIN)/python tests/book/render/check_lab.py book/*.ipynb

## make bench: the speed benchmarks (minutes; makes benchmarks/.venv-diffprivlib for the diffprivlib comparison)
bench: $(STAMP)
	bash benchmarks/make_diffprivlib_venv.sh
	$(BIN)/python benchmarks/bench_dplloyd.py
	$(BIN)/python benchmarks/bench_eugkm.py
	$(BIN)/python benchmarks/bench_wavecluster.py
	$(BIN)/python benchmarks/bench_svt.py --quick
	$(BIN)/python benchmarks/bench_mcmc.py --quick

clean:
	rm -rf _build _render
