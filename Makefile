# nashzoo: `make demo` sets up and runs the main job, `make test` sets up and runs the tests.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
EXTRAS ?= dev,plot,peers,ray,sb3,postgres

.PHONY: demo test bench install clean

$(VENV)/.installed-$(EXTRAS): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c constraints.txt -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $@

install: $(VENV)/.installed-$(EXTRAS)

demo: install
	$(PY) examples/demo.py --out demo_output

test: install
	$(PY) -m pytest -q -m "not slow"; rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

bench: install
	$(PY) benchmarks/env_throughput.py

clean:
	rm -rf $(VENV) demo_output build *.egg-info .pytest_cache .hypothesis
