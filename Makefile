# Common tasks; each assumes the virtual environment of the README (.venv).
PY ?= .venv/bin/python

.PHONY: setup test test-gpu lint samples bench fuzz fuzz-gpu

setup:
	python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]'

test:
	$(PY) -m pytest -q

test-gpu:
	$(PY) -m pytest -m gpu -q

fuzz:
	$(PY) -m tilelang.testing.fuzz --count 2000

fuzz-gpu:
	$(PY) -m tilelang.testing.fuzz --count 20000 --gpu

lint:
	$(PY) -m ruff check tilelang tests samples benchmarks

samples:
	for s in vector_add silu_and_mul row_bias_scale transpose_copy transpose softmax layer_norm \
	    rms_norm cumsum cross_entropy histogram embedding_gather gemm batched_gemm grouped_gemm \
	    fp8_gemm attention torch_rms_norm torch_silu_and_mul; do \
	  $(PY) samples/$$s.py || exit 1; done

bench:
	$(PY) benchmarks/bench_elementwise.py
	$(PY) benchmarks/bench_reductions.py
	$(PY) benchmarks/bench_matmul.py
	$(PY) benchmarks/bench_attention.py
