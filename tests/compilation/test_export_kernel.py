"""tilelang.compilation.export_kernel on the CPU: what a signature says is what the PTX is
specialized on (compiled-in extents, vector accesses from alignment facts), several signatures
in one cubin under their symbols, the files and the description, and the errors."""

from __future__ import annotations

import io
import json
import re
import shutil
import struct

import numpy as np
import pytest
from signatures import V1, V2, array

import tilelang as ct
from tilelang.compilation import (
    KernelSignature,
    ScalarConstraint,
    export_kernel,
)

EM_CUDA = 190
needs_assembler = pytest.mark.skipif(shutil.which("ptxas") is None,
                                     reason="assembling a cubin on the CPU needs ptxas")


@ct.kernel
def rows(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, (i, 0), ct.load(x, (i, 0), (TM, TN)))


@ct.kernel
def extent(x, out):
    ct.store(out, (0,), ct.full((1,), x.shape[0], ct.int32))


@ct.kernel
def shout(out, value, BLOCK: ct.Constant[int]):
    ct.printf("block %d\n", ct.bid(0))
    ct.store(out, (ct.bid(0),), ct.full((BLOCK,), value, ct.float32))




def ptx_of(kernel, *signatures, **options):
    out = io.BytesIO()
    description = export_kernel(kernel, list(signatures), out, output_format="ptx", **options)
    return out.getvalue().decode(), description


def accesses(ptx):
    return sorted(set(re.findall(r"(?:ld|st)\.global[.\w]*", ptx)))


def test_static_extent_is_a_constant_in_the_ptx():
    out = array(ct.int32, 1)
    dynamic, _ = ptx_of(extent, KernelSignature([array(ndim=1), out], V2))
    static, description = ptx_of(extent, KernelSignature(
        [array(ndim=1, shape_constant=(48,)), out], V2))
    # the extent parameter is still passed (the ABI does not change) but no longer read
    assert re.search(r"ld\.param\.\w+\s+%\w+, \[extent_param_1\]", dynamic)
    assert not re.search(r"ld\.param\.\w+\s+%\w+, \[extent_param_1\]", static)
    assert re.search(r"\b48;", static)
    assert description["kernels"][0]["symbol"] == "extent_Kt2_A1f32_1s48l0_A1i32_1l0"


def test_stride_divisibility_gives_vector_accesses():
    def signature(factor):
        a = array(stride_constant=(None, 1), stride_divisible_by=(factor, 1),
                  base_addr_divisible_by=16)
        return KernelSignature([a, a, 4, 64], V1)

    unaligned, _ = ptx_of(rows, signature(1))
    aligned, description = ptx_of(rows, signature(4))  # rows of 16-byte multiples
    assert "ld.global.v4.b32" not in unaligned and "ld.global.b32" in unaligned
    assert "ld.global.v4.b32" in aligned and "st.global.v4.b32" in aligned
    leaf = description["kernels"][0]["leaves"][0]
    assert (leaf["unit_stride"], leaf["align"]) == ([False, True], 16)


def test_same_code_as_tilelang_export(tmp_path):
    x = np.zeros((64, 64), np.float32)
    sig = KernelSignature.from_kernel_args(rows, (x, x, 4, 64), V1)
    ptx, description = ptx_of(rows, sig, gpu_code="sm_80")
    done = rows.export(tmp_path, x, x, 4, 64, arch="sm_80", cubin=False)
    theirs = done.ptx.read_text().replace(".entry rows(", f".entry {sig.symbol}(") \
        .replace(".globl\trows", f".globl\t{sig.symbol}")
    assert ptx == theirs
    assert description["kernels"][0]["parameters"] == done.description["parameters"]


@needs_assembler
def test_several_signatures_in_one_cubin(tmp_path):
    out = array(ndim=1, stride_constant=(1,), base_addr_divisible_by=16)
    signatures = [KernelSignature([out, ScalarConstraint(ct.float32), n], V1) for n in (64, 128)]
    signatures.append(signatures[0].with_symbol("shout_default"))
    path = tmp_path / "shout.cubin"
    description = export_kernel(shout, signatures, path, gpu_code="sm_90",
                                description_file=tmp_path / "shout.json")
    cubin = path.read_bytes()
    assert cubin[:4] == b"\x7fELF" and struct.unpack_from("<H", cubin, 18)[0] == EM_CUDA
    symbols = [k["symbol"] for k in description["kernels"]]
    assert symbols == ["shout_Kt1_A1f32_1t1_p16_Sf32_I64", "shout_Kt1_A1f32_1t1_p16_Sf32_I128",
                       "shout_default"]
    for symbol in symbols:
        assert symbol.encode() + b"\0" in cubin
    assert json.loads((tmp_path / "shout.json").read_text()) == description
    first = description["kernels"][0]
    assert first["launch"]["block"] == [128, 1, 1]
    assert first["resources"]["registers"] > 0
    assert [p["role"] for p in first["parameters"]] == ["data", "shape", "stride", "scalar"]


def test_several_signatures_in_one_ptx():
    out = array(ndim=1)
    ptx, _ = ptx_of(shout, *[KernelSignature([out, ScalarConstraint(ct.float32), n], V1)
                             for n in (64, 128)])
    assert len(re.findall(r"^\.version", ptx, re.M)) == 1
    assert len(re.findall(r"\.visible \.entry (\w+)\(", ptx)) == 2
    # each module's printf format keeps a name of its own
    formats = re.findall(r"^\.global \.align \d+ \.b8 (\w+)\[", ptx, re.M)
    assert len(formats) == len(set(formats)) == 2


def test_bytecode_means_ptx(tmp_path):
    sig = KernelSignature([array(ndim=1), ScalarConstraint(ct.float32), 64], V1)
    export_kernel(shout, [sig], tmp_path / "k.bin", output_format="tileir_bytecode",
                  bytecode_version="13.2")
    text = (tmp_path / "k.bin").read_text()
    assert ".target sm_90" in text and ".entry shout_Kt1_" in text


@pytest.mark.parametrize("options, error, match", [
    ({"output_format": "cubin"}, ct.TileArgumentValueError, "gpu_code is required"),
    ({"output_format": "fatbin", "gpu_code": "sm_90"}, ct.TileArgumentValueError,
     "Unknown output format 'fatbin'"),
    ({"output_format": "ptx", "bytecode_version": "13"}, ct.TileArgumentValueError,
     "bytecode_version must be a string 'major.minor'"),
    ({"output_format": "ptx", "gpu_code": "sm_70"}, ct.TileError, "sm_70"),
])
def test_bad_options(options, error, match):
    sig = KernelSignature([array(ndim=1), ScalarConstraint(ct.float32), 64], V1)
    with pytest.raises(error, match=match):
        export_kernel(shout, [sig], io.BytesIO(), **options)


def test_bad_signatures():
    sig = KernelSignature([array(ndim=1), ScalarConstraint(ct.float32), 64], V1)
    with pytest.raises(ct.TileArgumentValueError, match="at least one signature"):
        export_kernel(shout, [], io.BytesIO(), output_format="ptx")
    with pytest.raises(ValueError, match="two signatures are exported under one symbol"):
        export_kernel(shout, [sig, sig], io.BytesIO(), output_format="ptx")
    with pytest.raises(ct.TileArgumentValueError, match="not a valid entry point name"):
        export_kernel(shout, [sig.with_symbol("1st")], io.BytesIO(), output_format="ptx")
    with pytest.raises(ct.TileArgumentError, match="Invalid kernel parameter 'BLOCK'"):
        export_kernel(shout, [KernelSignature([array(ndim=1), ScalarConstraint(ct.float32),
                                               ScalarConstraint(ct.int32)], V1)],
                      io.BytesIO(), output_format="ptx")


def test_kernel_errors_point_at_the_kernel():
    # a 2-d array where the kernel loads 1-d tiles: the kernel's own line is named
    sig = KernelSignature([array(ndim=2), ScalarConstraint(ct.float32), 64], V1)
    with pytest.raises(ct.TileError) as info:
        export_kernel(shout, [sig], io.BytesIO(), output_format="ptx")
    assert "test_export_kernel.py" in str(info.value) and "ct.store(out" in str(info.value)
