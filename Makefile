# nashzoo: `make demo` sets up and runs the main job, `make test` sets up, checks the code
# (layers, lint, format, types) and runs the tests but the training-heavy ones marked slow
# (CI's command); `make test-all` runs those too, and `make coverage` runs every test
# under coverage.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
EXTRAS ?= dev,plot,peers,ray,sb3,postgres,server,docs
# pip installs without byte-compiling (--no-compile), and Python writes the bytecode of a
# module when it is first imported, so only what runs is compiled, once. In CI the
# install took 145 s with pip compiling every file of torch, Ray and the rest on one
# core, 76 s without; importing all the libraries the tests use then costs 11 s more,
# once (21 s instead of 10). Hence PYTHONDONTWRITEBYTECODE (set on some machines) is not
# passed to the commands below: with it, every process the tests start (tournament
# workers, CLI commands, sandboxes) compiled what it imports afresh (250 s more in CI).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-all pytest quick lint bench install clean coverage wheel-check release-check docs \
	docs-linkcheck

# uv installs the packages (pip installs uv first): it fetches and unpacks them in
# parallel, 100 s instead of 160 s for pip on a fresh 2-core machine with empty caches
# (2026-12-01, the same versions resolved). uv does not read pip's configuration, so
# pip's find-links (where a machine keeps wheels such as its CPU build of torch) are
# passed on (.ci/find_links.py). Where uv cannot be had or fails, pip installs everything.
$(VENV)/.installed-$(EXTRAS): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	if $(PIP) install --quiet --no-compile "uv>=0.5" && $(VENV)/bin/uv pip install --quiet \
		--python $(PY) $$($(PY) .ci/find_links.py) -c constraints.txt -e ".[$(EXTRAS)]"; \
	then :; else \
		$(PIP) install --quiet --no-compile --upgrade pip && \
		$(PIP) install --quiet --no-compile -c constraints.txt -e ".[$(EXTRAS)]"; \
	fi
	rm -f $(VENV)/.installed-*
	touch $@

install: $(VENV)/.installed-$(EXTRAS)

demo: install
	$(PY) examples/demo.py --out demo_output

# The layer contract, ruff (lint and format) and mypy, then the tests but those marked
# slow: CI runs this target, held to 25 minutes on the slower of our 2-core machines.
# The slow ones are training-heavy checks (learning at full budgets, the same run on Ray
# and locally), each with a short version that runs here; `make test-all` and `make
# coverage` (in `make release-check`) run them. Coverage is not this target's: its tracer
# made the test processes' CPU time 35% longer (2026-12-01, 2 cores: 498 unit tests, 307 s
# plain, 413 s traced).
test: install lint pytest

# Every test, slow ones included.
test-all: install lint
	$(MAKE) pytest TEST_MARKERS=

# The quick loop while developing: the tests but the slow ones, without the lint.
quick: pytest

lint: install
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

bench: install
	$(PY) benchmarks/env_throughput.py

# Every test. They run in TEST_WORKERS processes (pytest-xdist; work stealing evens out
# the few long tests). Every test's time goes to test-artifacts/junit.xml (the 15 longest
# are printed), and every numba compile's to test-artifacts/numba-compiles.tsv (summed in
# one line). PYTHONPATH=tests/startup: the processes the tests start log their compiles
# too, and under coverage compile untraced, as the pytest processes do
# (tests/startup/numba_compile.py).
TEST_WORKERS ?= 2
# How many of the longest tests pytest prints (`make test TEST_DURATIONS=40`; a
# --durations in PYTEST_ADDOPTS would be overridden by this command line's).
TEST_DURATIONS ?= 15
# Which tests run (a pytest -m expression; empty: all of them).
TEST_MARKERS ?= not slow
TEST_ENV = PYTHONPATH=$(CURDIR)/tests/startup \
	NASHZOO_TEST_COMPILE_LOG=$(CURDIR)/test-artifacts/numba-compiles.tsv
PYTEST_ARGS = -q -n $(TEST_WORKERS) --dist worksteal --durations=$(TEST_DURATIONS) \
	--junitxml=test-artifacts/junit.xml
pytest: install
	rm -f test-artifacts/numba-compiles.tsv
	mkdir -p test-artifacts
	$(TEST_ENV) $(PY) -m pytest $(PYTEST_ARGS) $(if $(TEST_MARKERS),-m "$(TEST_MARKERS)")
	$(PY) tests/startup/numba_compile.py test-artifacts/numba-compiles.tsv

# The test suite under coverage (subprocesses included), its report, and the floor set in
# pyproject.toml ([tool.coverage.report] fail_under).
coverage: install
	rm -f .coverage .coverage.* test-artifacts/numba-compiles.tsv
	mkdir -p test-artifacts
	COVERAGE_PROCESS_START=$(CURDIR)/pyproject.toml $(TEST_ENV) \
		$(PY) -m coverage run -m pytest $(PYTEST_ARGS)
	$(PY) tests/startup/numba_compile.py test-artifacts/numba-compiles.tsv
	$(PY) -m coverage combine -q
	$(PY) -m coverage report --skip-covered --sort=cover

# What `pip install nashzoo` installs: sdist and wheel built, the wheel installed into fresh
# venvs with no extras and with [all], and checked (.ci/wheel_check.py).
wheel-check: install
	$(PY) .ci/wheel_check.py

# The documentation site, docs/_build/html/index.html: any warning (a broken link between
# pages, a missing page, a bad docstring) fails the build. tests/test_docs_snippets.py
# runs every Python snippet.
docs: install
	$(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

# The links to other sites (needs the internet; the CI machine has none).
docs-linkcheck: install
	$(PY) -m sphinx -b linkcheck -q docs docs/_build/linkcheck

# Everything a release needs.
release-check: lint coverage wheel-check docs

clean:
	rm -rf $(VENV) demo_output build dist docs/_build *.egg-info .pytest_cache .hypothesis \
		.mypy_cache .ruff_cache .coverage .coverage.*
