# Common tasks; each assumes the virtual environment of the README (.venv).
PY ?= .venv/bin/python

.PHONY: setup test test-all test-gpu lint samples bench fuzz fuzz-gpu docs docs-serve

setup:
	python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]'

# the quick run (the README's); test-all: every CPU test, the slow ones too (README, "Tests")
test:
	$(PY) -m pytest -q -n 2

test-all:
	$(PY) -m pytest -q -n 2 -m 'not gpu'

test-gpu:
	$(PY) -m pytest -m gpu -q

fuzz:
	$(PY) -m tilelang.testing.fuzz --count 2000

fuzz-gpu:
	$(PY) -m tilelang.testing.fuzz --count 20000 --gpu

# the documentation site (mkdocs.yml) into site/; needs the docs extra: pip install -e '.[docs]'
docs:
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

docs-serve:
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs serve

lint:
	$(PY) -m ruff check tilelang tests samples benchmarks conftest.py

# every sample script: samples/*.py with a __main__ block (not the tests, not private _*.py)
SAMPLES = $(shell grep -l "__name__ == .__main__.:" \
	    $(sort $(filter-out samples/_% samples/test_%,$(wildcard samples/*.py))))

samples:
	for s in $(SAMPLES); do echo "== $$s"; $(PY) $$s || exit 1; done

bench:
	$(PY) benchmarks/bench_elementwise.py
	$(PY) benchmarks/bench_reductions.py
	$(PY) benchmarks/bench_matmul.py
	$(PY) benchmarks/bench_attention.py
