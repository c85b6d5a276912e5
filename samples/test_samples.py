"""Every sample at awkward sizes: on the interpreter always, on the GPU with `-m gpu`."""

from __future__ import annotations

import pytest
import row_bias_scale
import silu_and_mul
import transpose_copy
import vector_add
from _common import Backend, gpu_available

CASES = [
    ("vector_add", lambda b: vector_add.run(1, backend=b)),
    ("vector_add", lambda b: vector_add.run(5003, block=256, backend=b)),
    ("silu_and_mul", lambda b: silu_and_mul.run(19, 130, "bfloat16", b)),
    ("silu_and_mul", lambda b: silu_and_mul.run(3, 70, "float32", b)),
    ("silu_and_mul", lambda b: silu_and_mul.run(5, 257, "float16", b)),
    ("row_bias_scale", lambda b: row_bias_scale.run(33, 65, b)),
    ("row_bias_scale", lambda b: row_bias_scale.run(1, 1, b)),
    ("transpose_copy", lambda b: transpose_copy.run(45, 31, b)),
    ("transpose_copy", lambda b: transpose_copy.run(64, 1, b)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_sample_on_interpreter(name: str, case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    case(Backend(force_interpreter=True))


@pytest.mark.gpu
@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_sample_on_gpu(name: str, case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    assert gpu_available(), "the GPU tier needs a GPU"
    case(Backend())
