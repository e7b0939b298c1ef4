# nashzoo: `make demo` sets up and runs the main job, `make test` sets up, checks the code
# (layers, lint, format, types) and runs every test.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
EXTRAS ?= dev,plot,peers,ray,sb3,postgres,server

.PHONY: demo test quick lint bench install clean coverage wheel-check release-check

$(VENV)/.installed-$(EXTRAS): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c constraints.txt -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $@

install: $(VENV)/.installed-$(EXTRAS)

demo: install
	$(PY) examples/demo.py --out demo_output

# The layer contract, ruff (lint and format) and mypy, then the whole test suite.
test: install lint
	$(PY) -m pytest -q

# The quick loop while developing: everything but the tests marked slow.
quick: install
	$(PY) -m pytest -q -m "not slow"

lint: install
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

bench: install
	$(PY) benchmarks/env_throughput.py

# The test suite under coverage (subprocesses included), its report, and the floor set in
# pyproject.toml ([tool.coverage.report] fail_under).
coverage: install
	rm -f .coverage .coverage.*
	COVERAGE_PROCESS_START=$(CURDIR)/pyproject.toml $(PY) -m coverage run -m pytest -q
	$(PY) -m coverage combine -q
	$(PY) -m coverage report

# What `pip install nashzoo` installs: sdist and wheel built, the wheel installed into fresh
# venvs with no extras and with [all], and checked (.ci/wheel_check.py).
wheel-check: install
	$(PY) .ci/wheel_check.py

# Everything a release needs.
release-check: lint coverage wheel-check

clean:
	rm -rf $(VENV) demo_output build dist *.egg-info .pytest_cache .hypothesis .mypy_cache \
		.ruff_cache .coverage .coverage.*
