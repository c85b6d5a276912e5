"""Ahead-of-time export on the CPU: the files, the JSON parameter block (against the runtime's
packing and the PTX entry), the cubin's ELF header, and the C header, compiled here against a
minimal cuda.h and run with stub driver functions that print the bytes each parameter points to."""

from __future__ import annotations

import json
import re
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from c_programs import (
    CUDA_MIN,
    EM_CUDA,
    c_compiler,
    compile_c,
    cuda_headers,
    cxx_compiler,
    elf_sm,
    sm_number,
)
from export_kernels import affine2d, vector_add

import tilelang as ct
from tilelang.export import Array, Scalar, export
from tilelang.export.header import header_text
from tilelang.runtime.launcher import parameter_format


@ct.kernel
def structured(pair, out, sizes: tuple[ct.ScalarInt64, int], cfg: tuple[ct.Constant[int], int],
               flag, half):
    a = ct.load(pair[0], (0,), (cfg[0],))
    b = ct.load(pair[1][0], (0,), (cfg[0],))
    t = a + b * pair[1][1] + sizes[0] - sizes[1] + cfg[1]
    ct.store(out, (0,), t + ct.astype(flag, ct.int64) + ct.astype(half, ct.int64))


F32 = Array(ct.float32, 1, align=16)
ARCHS = ["sm_80", "sm_90"]


def vector_add_export(tmp_path: Path, arch: str = "sm_90", **options: Any) -> Any:
    return vector_add.export(tmp_path / arch, F32, F32, F32, 1024, arch=arch, **options)


def affine2d_export(tmp_path: Path, arch: str = "sm_90") -> Any:
    return affine2d.export(tmp_path / arch, Array(ct.float32, 2), Array("float32", 1),
                           Array(np.float32, 2), Scalar(ct.float32), 16, 64, arch=arch)


# ----- files, JSON, cubin ----------------------------------------------------------------------


@pytest.mark.parametrize("arch", ARCHS)
def test_vector_add_files(tmp_path: Path, arch: str) -> None:
    done = vector_add_export(tmp_path, arch)
    names = sorted(p.name for p in (tmp_path / arch).iterdir())
    assert names == ["vector_add.cubin", "vector_add.h", "vector_add.json", "vector_add.ptx"]
    desc = json.loads(done.json.read_text())
    assert desc == done.description
    assert (desc["name"], desc["entry"], desc["arch"], desc["ptx_target"]) == \
        ("vector_add", "vector_add", arch, arch)
    assert desc["launch"]["block"] == [128, 1, 1] and desc["launch"]["num_warps"] == 4
    assert desc["launch"]["dynamic_shared_bytes"] == 0 and desc["launch"]["attributes"] == []
    assert "blockIdx.x" in desc["launch"]["grid"]
    assert desc["arguments"][3] == {"name": "BLOCK", "kind": "constant", "value": 1024}
    params = desc["parameters"]
    assert [(p["path"], p["role"], p["c_type"]) for p in params[:3]] == [
        ("a", "data", "CUdeviceptr"), ("a", "shape", "int64_t"), ("a", "stride", "int64_t")]
    assert [p["offset"] for p in params] == [8 * i for i in range(9)]
    assert desc["parameter_buffer_bytes"] == 72
    leaf = desc["leaves"][0]
    assert (leaf["unit_stride"], leaf["align"], leaf["index_dtype"]) == ([True], 16, "int32")
    assert desc["resources"]["registers"] > 0 and desc["resources"]["spill_stores"] == 0
    assert f".target {arch}" in done.ptx.read_text()
    assert ".entry vector_add(" in done.ptx.read_text()


@pytest.mark.parametrize("arch", ARCHS)
def test_cubin_is_an_elf_for_the_arch(tmp_path: Path, arch: str) -> None:
    cubin = vector_add_export(tmp_path, arch).cubin.read_bytes()
    assert elf_sm(cubin) == (EM_CUDA, sm_number(arch))
    assert b".text.vector_add\x00" in cubin and b".nv.info.vector_add\x00" in cubin


@pytest.mark.parametrize("arch", ARCHS)
def test_2d_kernel_with_constant_tiles(tmp_path: Path, arch: str) -> None:
    done = affine2d_export(tmp_path, arch)
    desc = done.description
    assert elf_sm(done.cubin.read_bytes()) == (EM_CUDA, sm_number(arch))
    x, bias = desc["leaves"][:2]
    assert (x["ndim"], x["unit_stride"], x["align"]) == (2, [False, True], 4)
    assert (bias["ndim"], bias["unit_stride"]) == (1, [True])
    assert [a["value"] for a in desc["arguments"][4:]] == [16, 64]
    assert [p["c_field"] for p in desc["parameters"]][:5] == \
        ["x", "x_shape[0]", "x_shape[1]", "x_strides[0]", "x_strides[1]"]
    last = desc["parameters"][-1]
    assert last["c_type"] == "float"
    # the buffer ends where the trailing float ends (8k + 4 bytes), unpadded: the driver
    # refuses a buffer size other than the function's parameter size
    assert desc["parameter_buffer_bytes"] == last["offset"] + 4
    header = done.header.read_text()
    assert "#define AFFINE2D_CONST_TM (16)" in header
    assert "#define AFFINE2D_CONST_TN (64)" in header


def test_json_follows_the_runtime_packing_and_the_ptx(tmp_path: Path) -> None:
    x = np.zeros(64, np.int64)
    done = structured.export(tmp_path, (x, (x, Scalar(ct.int64))), x, (Scalar(ct.int64), 3),
                             (16, 5), True, Scalar(ct.float16), arch="sm_80")
    desc = done.description
    signature = structured.specialize(((x, (x, 2**40)), x, (2**40, 3), (16, 5), True,
                                       np.float16(1)))
    codes = parameter_format(signature)[1:].replace("x", "")
    assert "".join(p["struct"] for p in desc["parameters"]) == codes
    assert [leaf["path"] for leaf in desc["leaves"]] == \
        ["pair[0]", "pair[1][0]", "pair[1][1]", "out", "sizes[0]", "sizes[1]", "cfg[1]", "flag",
         "half"]
    assert [leaf["c_name"] for leaf in desc["leaves"]][:3] == ["pair_0", "pair_1_0", "pair_1_1"]
    by_path = {p["path"]: p for p in desc["parameters"] if p["role"] == "scalar"}
    assert (by_path["sizes[0]"]["c_type"], by_path["sizes[1]"]["c_type"]) == \
        ("int64_t", "int32_t")
    assert (by_path["flag"]["c_type"], by_path["flag"]["ptx_type"]) == ("uint8_t", ".u8")
    assert (by_path["half"]["c_type"], by_path["half"]["size"]) == ("uint16_t", 2)
    assert desc["arguments"][3] == {"name": "cfg", "kind": "tuple", "describe": "tuple of 2",
                                    "leaves": ["cfg[1]"]}  # cfg[0] is a Constant
    # offsets follow the PTX declarations (natural alignment) in order
    end = 0
    for p in desc["parameters"]:
        assert p["offset"] == end + -end % p["align"]
        end = p["offset"] + p["size"]
    ptx = done.ptx.read_text()
    declared = re.findall(r"\.param\s", ptx[ptx.index(".entry structured("):ptx.index(")")])
    assert len(declared) == len(desc["parameters"])


def test_example_arguments_select_the_launch_signature(tmp_path: Path) -> None:
    x = np.zeros((37, 50), np.float32)[:, 1:]  # rows of 200 bytes: 8-byte aligned strides
    bias, out = np.zeros(49, np.float32), np.zeros((37, 49), np.float32)
    args = (x, bias, out, 1.5, 16, 64)
    done = affine2d.export(tmp_path, *args, arch="sm_90")
    expected = affine2d.specialize(args)
    assert [leaf["align"] for leaf in done.description["leaves"][:3]] == \
        [s.align for s in expected[:3]]
    assert done.description["leaves"][3]["dtype"] == "float32"  # 1.5 is a float32 scalar


def test_descriptions_have_exactly_their_facts(tmp_path: Path) -> None:
    from tilelang.export.signature import export_signature

    cases = {
        Array(ct.float32, 2): ((False, True), 4),
        Array(ct.float32, 2, align=16): ((False, True), 16),
        Array(ct.float16, 3, unit_stride=(False, False, False), align=8): ((False,) * 3, 8),
        Array(ct.bool_, 1): ((True,), 1),
        Array(ct.float64, 2, align=16, unit_stride=(True, False)): ((True, False), 16),
        Array(ct.int8, 0): ((), 1),
    }
    for desc, (unit, align) in cases.items():
        (spec, *_) = export_signature(vector_add, (desc, desc, desc, 8))
        assert (spec.dtype, spec.unit_stride, spec.align) == (desc.dtype, unit, align), desc


def test_cubin_false_writes_ptx_only(tmp_path: Path) -> None:
    done = vector_add_export(tmp_path, cubin=False)
    assert done.cubin is None and not (tmp_path / "sm_90" / "vector_add.cubin").exists()
    assert done.description["files"]["cubin"] is None
    assert done.description["resources"] is None
    assert '"path/to/vector_add.ptx"' in done.header.read_text()


def test_name_and_default_arch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tilelang.export import writer

    monkeypatch.delenv("TILELANG_ARCH", raising=False)
    monkeypatch.setattr(writer, "_current_arch", lambda: None)  # as on a machine without a GPU
    done = export(vector_add, tmp_path, F32, F32, F32, 256, name="add_f32_256")
    assert done.description["arch"] == "sm_90"
    assert done.header.name == "add_f32_256.h" and "ADD_F32_256_ENTRY" in done.header.read_text()
    assert done.description["entry"] == "vector_add"
    monkeypatch.setenv("TILELANG_ARCH", "sm_80")
    assert vector_add.export(tmp_path / "b", F32, F32, F32, 256).description["arch"] == "sm_80"


# ----- the C header ----------------------------------------------------------------------------


needs_cc = pytest.mark.skipif(c_compiler() is None, reason="no C compiler (cc, gcc, clang)")


@needs_cc
@pytest.mark.parametrize("cuda", cuda_headers(), ids=lambda p: p.parent.name)
@pytest.mark.parametrize("std", ["c99", "c11"])
def test_header_compiles_as_c(tmp_path: Path, std: str, cuda: Path) -> None:
    for done in (vector_add_export(tmp_path), affine2d_export(tmp_path, "sm_80")):
        source = tmp_path / f"use_{done.header.stem}.c"
        source.write_text(f'#include "{done.header.name}"\nint main(void) {{ return 0; }}\n')
        run = compile_c(c_compiler(), source, cuda, done.directory, f"-std={std}",
                        "-Wall", "-Wextra", "-Werror", "-pedantic")
        assert run.returncode == 0, run.stderr


@pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler")
@pytest.mark.parametrize("cuda", cuda_headers(), ids=lambda p: p.parent.name)
def test_header_compiles_as_cxx(tmp_path: Path, cuda: Path) -> None:
    done = vector_add_export(tmp_path)
    source = tmp_path / "use.cpp"
    source.write_text('#include "vector_add.h"\nint main() { return 0; }\n')
    run = compile_c(cxx_compiler(), source, cuda, done.directory, "-Wall", "-Werror")
    assert run.returncode == 0, run.stderr


STUBS = r"""
#include <stdio.h>
#include <string.h>

CUresult cuModuleLoad(CUmodule *m, const char *path)
{ printf("load %s\n", path); *m = (CUmodule)0x10; return CUDA_SUCCESS; }
CUresult cuModuleLoadData(CUmodule *m, const void *image)
{ (void)image; *m = (CUmodule)0x10; return CUDA_SUCCESS; }
CUresult cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{ (void)m; printf("function %s\n", name); *f = (CUfunction)0x20; return CUDA_SUCCESS; }
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{ (void)f; printf("attribute %d %d\n", (int)a, v); return CUDA_SUCCESS; }
static const int sizes[] = {SIZES};
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                        void **extra)
{
    int i, b;
    (void)f; (void)s; (void)extra;
    printf("launch %u %u %u %u %u %u %u\n", gx, gy, gz, bx, by, bz, shared);
    for (i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); i++) {
        printf("param");
        for (b = 0; b < sizes[i]; b++)
            printf(" %02x", ((unsigned char *)params[i])[b]);
        printf("\n");
    }
    return CUDA_SUCCESS;
}
"""


def run_with_stubs(tmp_path: Path, done: Any, body: str) -> list[str]:
    """Compile and run `body` (the inside of main, with `f` a loaded function) against the
    stub driver; its output lines."""
    desc = done.description
    sizes = ", ".join(str(p["size"]) for p in desc["parameters"])
    source = tmp_path / "prog.c"
    source.write_text(f'#include "{done.header.name}"\n' + STUBS.replace("SIZES", sizes) +
                      f"int main(void)\n{{\n    CUmodule m;\n    CUfunction f;\n"
                      f'    if ({desc["name"]}_load("k.cubin", &m, &f) != CUDA_SUCCESS)\n'
                      f"        return 1;\n{body}\n    return 0;\n}}\n")
    exe = tmp_path / "prog"
    build = compile_c(c_compiler(), source, CUDA_MIN, done.directory, "-std=c99", "-Wall",
                      "-Werror", output=exe)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    return run.stdout.splitlines()


def assignments(desc: dict[str, Any], values: dict[str, Any]) -> str:
    return "\n".join(f"    p.{p['c_field']} = {values[p['c_field']]};"
                     for p in desc["parameters"])


@needs_cc
def test_header_passes_what_the_runtime_packs(tmp_path: Path) -> None:
    x = np.zeros(8, np.int64)
    done = structured.export(tmp_path, (x, (x, Scalar(ct.int64))), x, (Scalar(ct.int64), 3),
                             (16, 5), True, Scalar(ct.float16), arch="sm_80")
    desc = done.description
    values = {"pair_0": 0x7F00001000, "pair_0_shape[0]": 1000, "pair_0_strides[0]": 1,
              "pair_1_0": 0x7F00002000, "pair_1_0_shape[0]": 999, "pair_1_0_strides[0]": 1,
              "pair_1_1": -(2**40) - 5, "out": 0x7F00003000, "out_shape[0]": 7,
              "out_strides[0]": 1, "sizes_0": 2**35 + 1, "sizes_1": -17, "cfg_1": 5, "flag": 1,
              "half": int(np.float16(-2.5).view(np.uint16))}
    lines = run_with_stubs(tmp_path, done, "    struct_params p;\n".replace(
        "struct", desc["name"]) + assignments(desc, values) +
        f'\n    printf("result %d\\n", (int){desc["name"]}_launch(f, 0, 3, 2, 1, &p));')
    assert lines[:2] == ['load k.cubin', 'function structured']
    assert lines[2] == "launch 3 2 1 128 1 1 0"
    assert lines[-1] == "result 0"
    # the runtime's own packing of the same values (half as the float it is)
    python_values = [values[p["c_field"]] for p in desc["parameters"]]
    python_values[-1] = -2.5
    block = struct.pack(parameter_format(structured.specialize(
        ((x, (x, 2**40)), x, (2**40, 3), (16, 5), True, np.float16(1)))), *python_values)
    for i, (param, line) in enumerate(zip(desc["parameters"], lines[3:-1], strict=True)):
        assert line == "param " + block[8 * i:8 * i + param["size"]].hex(" "), param


@needs_cc
def test_header_refuses_what_the_kernel_does_not_assume(tmp_path: Path) -> None:
    done = affine2d.export(tmp_path, Array(ct.float32, 2, align=16), F32, Array(ct.float32, 2),
                           Scalar(ct.float32), 16, 64, arch="sm_90")
    good = {"x": 4096, "x_shape[0]": 33, "x_shape[1]": 12, "x_strides[0]": 12,
            "x_strides[1]": 1, "bias": 8192, "bias_shape[0]": 12, "bias_strides[0]": 1,
            "out": 12288, "out_shape[0]": 33, "out_shape[1]": 12, "out_strides[0]": 13,
            "out_strides[1]": 1, "scale": 2.0}
    bad = {"x": 4100, "x_strides[0]": 13, "x_strides[1]": 2, "x_shape[0]": 2**31,
           "out_shape[1]": -1, "bias_strides[0]": 3}
    body = []
    for field, value in [(None, None), *bad.items()]:
        values = good | ({field: value} if field else {})
        body.append("    {\n        affine2d_params p;\n" + assignments(done.description, values)
                    + '\n        const char *why = affine2d_check(&p);\n'
                    '        printf("%d %s\\n", (int)affine2d_launch(f, 0, 1, 1, 1, &p), '
                    'why ? why : "ok");\n    }')
    lines = [line for line in run_with_stubs(tmp_path, done, "\n".join(body))
             if line[:1].isdigit()]
    assert lines[0] == "0 ok"
    expected = ["x must be 16-byte aligned", "x.strides[0] * 4 bytes must be a multiple of 16",
                "x.strides[1] must be 1", "x.shape[0] or .strides[0] does not fit int32",
                "out.shape[1] is negative", "bias.strides[0] must be 1"]
    for line, why in zip(lines[1:], expected, strict=True):
        assert line.startswith("1 affine2d: " + why), line  # CUDA_ERROR_INVALID_VALUE


@needs_cc
def test_large_shared_memory_sets_the_attribute(tmp_path: Path) -> None:
    done = vector_add_export(tmp_path)
    desc = json.loads(done.json.read_text())
    desc["launch"]["dynamic_shared_bytes"] = 65536  # as a kernel with big scratch would have
    desc["launch"]["attributes"] = [{"attribute": "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
                                     "value": 65536}]
    done.header.write_text(header_text(desc))
    lines = run_with_stubs(tmp_path, done, "    (void)f;")
    assert lines == ["load k.cubin", "function vector_add", "attribute 8 65536"]


def test_dataclass_and_list_arguments(tmp_path: Path) -> None:
    done = grouped.export(tmp_path, [F32, F32, F32], Pair(F32, Scalar(ct.float32)), 64,
                          arch="sm_90")
    paths = [leaf["path"] for leaf in done.description["leaves"]]
    assert paths == ["xs[0]", "xs[1]", "xs[2]", "p.out", "p.scale"]
    assert [leaf["c_name"] for leaf in done.description["leaves"]] == \
        ["xs_0", "xs_1", "xs_2", "p_out", "p_scale"]


@dataclass(frozen=True)
class Pair:
    out: Any
    scale: Any


@ct.kernel
def grouped(xs, p, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(xs[0], (i,), (B,)) + ct.load(xs[1], (i,), (B,)) + ct.load(xs[2], (i,), (B,))
    ct.store(p.out, (i,), t * p.scale)


@needs_cc
@pytest.mark.parametrize("cuda", cuda_headers(), ids=lambda p: p.parent.name)
def test_gpu_test_programs_compile_here(tmp_path: Path, cuda: Path) -> None:
    """The C programs tests/gpu/test_export_gpu.py runs on the GPU are valid C, against the
    minimal cuda.h and the toolkit's when this machine has it."""
    from c_programs import AFFINE2D_MAIN, VECTOR_ADD_MAIN, program

    for done, main in ((vector_add_export(tmp_path), VECTOR_ADD_MAIN),
                       (affine2d_export(tmp_path, "sm_80"), AFFINE2D_MAIN)):
        source = done.directory / "prog.c"
        source.write_text(program(done.description, main))
        run = compile_c(c_compiler(), source, cuda, done.directory, "-std=c99", "-Wall",
                        "-Wextra", "-Werror")
        assert run.returncode == 0, run.stderr


@needs_cc
def test_gpu_test_programs_run_on_a_fake_driver(tmp_path: Path) -> None:
    """The GPU test's programs, built as there (toolkit's cuda.h when present, linked with a
    libcuda) and run against a CPU stand-in for the driver: their flow, both launch forms and
    the refused misaligned launch work before they meet the GPU."""
    from c_programs import AFFINE2D_MAIN, VECTOR_ADD_MAIN, build_program, fake_libcuda

    libs = fake_libcuda(tmp_path / "fakecuda")
    done = vector_add_export(tmp_path)
    exe = build_program(done, VECTOR_ADD_MAIN, libs)
    lines = subprocess.run([exe, done.cubin, "3001"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    assert lines == [f"round {r}: 0 wrong of 3001" for r in range(3)] + \
        ["misaligned: 1 vector_add: a must be 16-byte aligned"]
    done = affine2d_export(tmp_path, "sm_80")
    assert [p["offset"] for p in done.description["parameters"]][-1] == 104  # as the fake reads
    exe = build_program(done, AFFINE2D_MAIN, libs)
    lines = subprocess.run([exe, done.cubin, "77", "133", "141"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    assert [line.split(",")[0] for line in lines] == \
        [f"round {r}: 0 wrong of {77 * 133}" for r in range(2)]


@ct.kernel
def no_parameters(N: ct.Constant[int]):
    t = ct.full((N,), 1.0, dtype=ct.float32)
    ct.printf("%f\n", ct.sum(t))


@needs_cc
def test_kernel_without_run_time_parameters(tmp_path: Path) -> None:
    done = no_parameters.export(tmp_path, 8, arch="sm_80")
    assert done.description["parameters"] == [] and done.description["leaves"] == []
    assert done.description["parameter_buffer_bytes"] == 0
    lines = run_with_stubs(tmp_path, done, '    no_parameters_params p = {0};\n    printf("result '
                           '%d\\n", (int)no_parameters_launch(f, 0, 1, 1, 1, &p));')
    assert lines[-2:] == ["launch 1 1 1 128 1 1 0", "result 0"]
