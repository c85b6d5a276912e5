"""Front end to PTX on the CPU: every sample compiles, assembles for sm_80 and sm_90, and the
memory-bound ones get 16-byte accesses and no spills."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import row_bias_scale
import silu_and_mul
import transpose_copy
import vector_add

F32 = np.zeros((100, 300), np.float32)
BF16 = np.zeros((64, 1024), ml_dtypes.bfloat16)  # 16-byte aligned rows: vector accesses
SAMPLES = {
    "vector_add": (vector_add.vector_add, (F32[0], F32[0], F32[0], 1024)),
    "row_bias_scale": (row_bias_scale.row_bias_scale,
                       (F32, F32[0], F32[:, 0].copy(), F32, 32, 64)),
    "transpose_copy": (transpose_copy.transpose_copy, (F32[::2, 1::3], F32.T.copy(), 32, 32)),
    "silu_and_mul": (silu_and_mul.silu_and_mul,
                     (BF16[:, :512], BF16[:, 512:], BF16[:, :512].copy(), 16, 128)),
}
VECTOR_ACCESS = {"vector_add": "v4.b32", "silu_and_mul": "v4.b32", "row_bias_scale": "v4.b32"}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_assembles(name: str, arch: str) -> None:
    kernel, args = SAMPLES[name]
    compiled = ct.compile(kernel, args, arch=arch)
    assert compiled.stages == ("source", "tile", "tile-opt", "layout", "simt", "llvm", "ptx",
                               "cubin")
    assert f".target {arch}" in compiled.ptx
    resources = compiled.resources()  # assembles with ptxas (or nvJitLink)
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert 0 < resources.registers <= 128
    assert compiled.name in compiled.report()
    if name in VECTOR_ACCESS:
        assert f"ld.global.{VECTOR_ACCESS[name]}" in compiled.ptx
        assert f"st.global.{VECTOR_ACCESS[name]}" in compiled.ptx


def test_dump_dir_has_every_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_DUMP_DIR", str(tmp_path))
    kernel, args = SAMPLES["vector_add"]
    compiled = ct.compile(kernel, args)
    (folder,) = (tmp_path / "vector_add").iterdir()  # one folder per specialization
    files = sorted(p.name for p in folder.iterdir())
    assembled = ["07-cubin.cubin"] if compiled.cubin is not None else []
    assert files == ["00-source.py", "01-tile.mlir", "02-tile-opt.mlir", "03-layout.mlir",
                     "04-simt.mlir", "05-llvm.mlir", "06-ptx.ptx", *assembled]
    if shutil.which("ptxas"):  # the cubin stage falls back on it
        assert (folder / "07-cubin.cubin").read_bytes() == compiled.cubin
        assert compiled.cubin[:4] == b"\x7fELF"
    ct.compile(kernel, (args[0].astype(np.float64),) * 3 + (1024,))  # another specialization
    assert len(list((tmp_path / "vector_add").iterdir())) == 2


def test_stop_after_each_stage() -> None:
    kernel, args = SAMPLES["row_bias_scale"]
    stages = ("source", "tile", "tile-opt", "layout", "simt", "llvm")
    for i, stage in enumerate(stages):
        compiled = ct.compile(kernel, args, stop_after=stage)
        assert compiled.stages == stages[: i + 1]
    layout = ct.compile(kernel, args, stop_after="layout").asm["layout"]
    assert "#tile.layout<" in layout
    simt = ct.compile(kernel, args, stop_after="simt").asm["simt"]
    assert "gpu.func" in simt and '"tile.' not in simt  # no tile op is left


def test_bad_arch_is_a_clear_error() -> None:
    kernel, args = SAMPLES["vector_add"]
    with pytest.raises(ct.TileValueError, match="sm_70 is not supported"):
        ct.compile(kernel, args, arch="sm_70")
