"""Helpers of the export tests: find a C compiler, compile C programs against an exported
header, read a cubin's ELF header. Imported by tests/export and tests/gpu/test_export_gpu.py."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

CUDA_MIN = Path(__file__).parent / "cuda_min"  # a minimal cuda.h (real ABI, few declarations)
EM_CUDA = 190


def c_compiler() -> str | None:
    for candidate in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def cxx_compiler() -> str | None:
    for candidate in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def compile_c(compiler: str, source: Path, cuda: Path, directory: Path, *flags: str,
              output: Path | None = None, libs: tuple[str, ...] = ()
              ) -> subprocess.CompletedProcess[str]:
    """Compile `source` (to `output` linked with `libs`, or syntax only) with the cuda.h in
    `cuda` (a system header: the toolkit's is not -pedantic clean) and the exported files in
    `directory`."""
    command = [compiler, *flags, "-isystem", str(cuda), f"-I{directory}", str(source)]
    command += ["-o", str(output), *libs] if output else ["-fsyntax-only"]
    return subprocess.run(command, capture_output=True, text=True)


def cuda_toolkit_include() -> Path | None:
    """The CUDA toolkit's include folder (with the real cuda.h), if this machine has one."""
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "include" / "cuda.h").exists():
            return Path(root) / "include"
    return None


def cuda_headers() -> list[Path]:
    """Folders holding a cuda.h to compile exported headers against: the minimal one, and the
    toolkit's when installed."""
    found = cuda_toolkit_include()
    return [CUDA_MIN] + ([found] if found else [])


def elf_sm(cubin: bytes) -> tuple[int, int]:
    """(e_machine, SM number) of a cubin: EI_ABIVERSION 8 (CUDA 13) keeps the SM in bits 8-15 of
    e_flags, older cubins in bits 0-7."""
    assert cubin[:4] == b"\x7fELF", "not an ELF file"
    assert cubin[4] == 2 and cubin[5] == 1, "not a 64-bit little-endian ELF file"
    machine = struct.unpack_from("<H", cubin, 18)[0]
    flags = struct.unpack_from("<I", cubin, 48)[0]
    return machine, (flags >> 8) & 0xFF if cubin[8] >= 8 else flags & 0xFF


def sm_number(arch: str) -> int:
    return int(re.fullmatch(r"sm_(\d+)a?", arch).group(1))


# ----- programs that launch an exported kernel on the GPU (tests/gpu/test_export_gpu.py) --------

PRELUDE = r"""#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "HEADER"

#define CHECK(call)                                                                  \
    do {                                                                             \
        CUresult err_ = (call);                                                      \
        if (err_ != CUDA_SUCCESS) {                                                  \
            fprintf(stderr, "line %d: %s failed with %d\n", __LINE__, #call, (int)err_); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static int start(CUcontext *context)
{
    CUdevice device;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(context, device));
    CHECK(cuCtxSetCurrent(*context));
    return 0;
}

unsigned char *read_file(const char *path); /* not static: not every program uses it */
unsigned char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long size;
    unsigned char *data;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0)
        return NULL;
    rewind(f);
    data = (unsigned char *)malloc((size_t)size + 1);
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    if (data)
        data[size] = 0; /* a PTX image must end with a NUL */
    fclose(f);
    return data;
}
"""


def launch_by_offsets(desc: dict) -> str:
    """A C function that launches through CU_LAUNCH_PARAM_BUFFER_POINTER, copying each field
    of the params struct to the offset the JSON gives it: proves the JSON's offsets."""
    name, upper = desc["name"], desc["name"].upper()
    copies = "\n".join(
        f"    memcpy((unsigned char *)buffer + {p['offset']}, &p->{p['c_field']}, {p['size']});"
        for p in desc["parameters"])
    words = (desc["parameter_buffer_bytes"] + 7) // 8 or 1
    return f"""
static CUresult launch_by_offsets(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                  const {name}_params *p)
{{
    uint64_t buffer[{words}];
    size_t size = {desc['parameter_buffer_bytes']};
    void *extra[] = {{CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END}};
    memset(buffer, 0, sizeof buffer);
{copies}
    return cuLaunchKernel(f, gx, gy, gz, {upper}_BLOCK_THREADS, 1, 1,
                          {upper}_DYNAMIC_SHARED_BYTES, NULL, NULL, extra);
}}
"""


VECTOR_ADD_MAIN = r"""
/* usage: prog <cubin> <n>: c = a + b on n floats, launched three ways (the header's launch from
 * a file, the header's launch from memory, the JSON's offsets), then a refused misaligned one */
int main(int argc, char **argv)
{
    CUcontext context;
    CUmodule module, module2;
    CUfunction f, f2;
    vector_add_params p;
    long n, i, bad = 0;
    size_t bytes;
    float *a, *b, *c;
    CUdeviceptr da, db, dc;
    unsigned int grid;
    int round;
    unsigned char *image;
    if (argc != 3 || start(&context))
        return 1;
    n = atol(argv[2]);
    bytes = (size_t)n * sizeof(float);
    a = (float *)malloc(bytes);
    b = (float *)malloc(bytes);
    c = (float *)malloc(bytes);
    for (i = 0; i < n; i++) {
        a[i] = sinf((float)i);
        b[i] = cosf(0.5f * (float)i) * 3.0f;
    }
    CHECK(vector_add_load(argv[1], &module, &f));
    image = read_file(argv[1]);
    if (!image)
        return 2;
    CHECK(vector_add_load_data(image, &module2, &f2));
    CHECK(cuMemAlloc(&da, bytes));
    CHECK(cuMemAlloc(&db, bytes));
    CHECK(cuMemAlloc(&dc, bytes));
    CHECK(cuMemcpyHtoD(da, a, bytes));
    CHECK(cuMemcpyHtoD(db, b, bytes));
    memset(&p, 0, sizeof p);
    p.a = da; p.a_shape[0] = n; p.a_strides[0] = 1;
    p.b = db; p.b_shape[0] = n; p.b_strides[0] = 1;
    p.c = dc; p.c_shape[0] = n; p.c_strides[0] = 1;
    grid = (unsigned int)((n + VECTOR_ADD_CONST_BLOCK - 1) / VECTOR_ADD_CONST_BLOCK);
    for (round = 0; round < 3; round++) {
        memset(c, 0xff, bytes); /* NaN: what is never written shows */
        CHECK(cuMemcpyHtoD(dc, c, bytes));
        if (round == 0)
            CHECK(vector_add_launch(f, NULL, grid, 1, 1, &p));
        else if (round == 1)
            CHECK(vector_add_launch(f2, NULL, grid, 1, 1, &p));
        else
            CHECK(launch_by_offsets(f, grid, 1, 1, &p));
        CHECK(cuCtxSynchronize());
        CHECK(cuMemcpyDtoH(c, dc, bytes));
        for (i = 0; i < n; i++)
            if (!(c[i] == a[i] + b[i]))
                bad++;
        printf("round %d: %ld wrong of %ld\n", round, bad, n);
    }
    p.a = da + 4; /* not 16-byte aligned, as the export promised */
    printf("misaligned: %d %s\n", (int)vector_add_launch(f, NULL, grid, 1, 1, &p),
           vector_add_check(&p));
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
    CHECK(cuModuleUnload(module));
    CHECK(cuModuleUnload(module2));
    free(image);
    return bad != 0;
}
"""

AFFINE2D_MAIN = r"""
/* usage: prog <cubin> <rows> <cols> <pitch>: out = x * scale + bias (per column), x with rows
 * `pitch` elements apart, out contiguous; compared with the same on the CPU */
int main(int argc, char **argv)
{
    CUcontext context;
    CUmodule module;
    CUfunction f;
    affine2d_params p;
    long rows, cols, pitch, i, j, bad = 0;
    float *x, *bias, *out, scale = 0.75f;
    CUdeviceptr dx, dbias, dout;
    unsigned int gx, gy;
    int round;
    double worst = 0.0;
    if (argc != 5 || start(&context))
        return 1;
    rows = atol(argv[2]);
    cols = atol(argv[3]);
    pitch = atol(argv[4]);
    x = (float *)malloc((size_t)(rows * pitch) * sizeof(float));
    bias = (float *)malloc((size_t)cols * sizeof(float));
    out = (float *)malloc((size_t)(rows * cols) * sizeof(float));
    for (i = 0; i < rows * pitch; i++)
        x[i] = sinf(0.37f * (float)i);
    for (j = 0; j < cols; j++)
        bias[j] = (float)j - 20.0f;
    CHECK(affine2d_load(argv[1], &module, &f));
    CHECK(cuMemAlloc(&dx, (size_t)(rows * pitch) * sizeof(float)));
    CHECK(cuMemAlloc(&dbias, (size_t)cols * sizeof(float)));
    CHECK(cuMemAlloc(&dout, (size_t)(rows * cols) * sizeof(float)));
    CHECK(cuMemcpyHtoD(dx, x, (size_t)(rows * pitch) * sizeof(float)));
    CHECK(cuMemcpyHtoD(dbias, bias, (size_t)cols * sizeof(float)));
    memset(&p, 0, sizeof p);
    p.x = dx; p.x_shape[0] = rows; p.x_shape[1] = cols; p.x_strides[0] = pitch; p.x_strides[1] = 1;
    p.bias = dbias; p.bias_shape[0] = cols; p.bias_strides[0] = 1;
    p.out = dout; p.out_shape[0] = rows; p.out_shape[1] = cols;
    p.out_strides[0] = cols; p.out_strides[1] = 1;
    p.scale = scale;
    gx = (unsigned int)((rows + AFFINE2D_CONST_TM - 1) / AFFINE2D_CONST_TM);
    gy = (unsigned int)((cols + AFFINE2D_CONST_TN - 1) / AFFINE2D_CONST_TN);
    for (round = 0; round < 2; round++) {
        memset(out, 0xff, (size_t)(rows * cols) * sizeof(float));
        CHECK(cuMemcpyHtoD(dout, out, (size_t)(rows * cols) * sizeof(float)));
        if (round == 0)
            CHECK(affine2d_launch(f, NULL, gx, gy, 1, &p));
        else
            CHECK(launch_by_offsets(f, gx, gy, 1, &p));
        CHECK(cuCtxSynchronize());
        CHECK(cuMemcpyDtoH(out, dout, (size_t)(rows * cols) * sizeof(float)));
        for (i = 0; i < rows; i++)
            for (j = 0; j < cols; j++) {
                double want = (double)x[i * pitch + j] * scale + bias[j];
                double err = fabs(out[i * cols + j] - want);
                if (!(err <= 1e-5 * (1.0 + fabs(want))))
                    bad++;
                if (err > worst)
                    worst = err;
            }
        printf("round %d: %ld wrong of %ld, worst error %g\n", round, bad, rows * cols, worst);
    }
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dbias));
    CHECK(cuMemFree(dout));
    CHECK(cuModuleUnload(module));
    return bad != 0;
}
"""


def program(desc: dict, main: str) -> str:
    """The C source of a program that launches the kernel `desc` describes."""
    return PRELUDE.replace("HEADER", desc["files"]["header"]) + launch_by_offsets(desc) + main


def libcuda_flags() -> list[str]:
    """Link flags for the CUDA driver: the toolkit's stub library, else the driver itself."""
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        for sub in ("lib64/stubs", "lib/stubs", "targets/x86_64-linux/lib/stubs"):
            if root and (Path(root) / sub / "libcuda.so").exists():
                return [f"-L{Path(root) / sub}", "-lcuda"]
    import ctypes

    ctypes.CDLL("libcuda.so.1")  # loaded: its file is in this process's memory map
    for line in Path("/proc/self/maps").read_text().splitlines():
        if "/libcuda.so" in line:
            return [line.split()[-1]]
    return ["-lcuda"]


def build_program(done: Any, main: str, libs: list[str]) -> Path:
    """Build the program `main` for the export `done`, against the toolkit's cuda.h (else the
    minimal one) and the driver library `libs`; the executable."""
    name = done.description["name"]
    source = done.directory / f"{name}_main.c"
    source.write_text(program(done.description, main))
    exe = done.directory / f"{name}_main"
    result = compile_c(c_compiler(), source, cuda_toolkit_include() or CUDA_MIN, done.directory,
                       "-std=c99", "-O1", "-Wall", "-Werror", output=exe, libs=(*libs, "-lm"))
    assert result.returncode == 0, result.stderr
    return exe


FAKE_DRIVER = r"""
/* A stand-in libcuda for the CPU: host memory as device memory, and the two test kernels
 * computed on the CPU from the parameters the program passes (kernelParams or the JSON's
 * buffer offsets), so the GPU test's programs run here end to end. */
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char current[64];

CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{ (void)d; *c = (CUcontext)0x1; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{ *p = (CUdeviceptr)(uintptr_t)aligned_alloc(256, (n + 255) / 256 * 256); return CUDA_SUCCESS; }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{ memcpy((void *)(uintptr_t)d, s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{ memcpy(d, (void *)(uintptr_t)s, n); return CUDA_SUCCESS; }
CUresult cuModuleLoad(CUmodule *m, const char *path)
{ (void)path; *m = (CUmodule)0x2; return CUDA_SUCCESS; }
CUresult cuModuleLoadData(CUmodule *m, const void *image)
{ (void)image; *m = (CUmodule)0x2; return CUDA_SUCCESS; }
CUresult cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{ (void)m; strncpy(current, name, sizeof current - 1); *f = (CUfunction)0x3; return CUDA_SUCCESS; }
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{ (void)f; (void)a; (void)v; return CUDA_SUCCESS; }

/* parameter i: from kernelParams, else from the buffer at the offsets of 8-byte parameters
 * (the float scale last, at its own offset) */
static const void *param(void **params, void **extra, int i, int offset)
{
    if (params)
        return params[i];
    return (const char *)extra[1] + offset;
}
#define I64(i) (*(const int64_t *)param(params, extra, i, 8 * (i)))
#define PTR(i) ((float *)(uintptr_t)*(const CUdeviceptr *)param(params, extra, i, 8 * (i)))

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                        void **extra)
{
    int64_t i, j;
    (void)f; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)s;
    if (strcmp(current, "vector_add") == 0) {
        float *a = PTR(0), *b = PTR(3), *c = PTR(6);
        for (i = 0; i < I64(1) && i < (int64_t)gx * 1024; i++)
            c[i * I64(8)] = a[i * I64(2)] + b[i * I64(5)];
        return CUDA_SUCCESS;
    }
    if (strcmp(current, "affine2d") == 0) {
        float *x = PTR(0), *bias = PTR(5), *out = PTR(8);
        float scale = *(const float *)param(params, extra, 13, 104);
        for (i = 0; i < I64(1); i++)
            for (j = 0; j < I64(2); j++)
                out[i * I64(11) + j * I64(12)] = x[i * I64(3) + j * I64(4)] * scale +
                                                 bias[j * I64(7)];
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}
"""


def fake_libcuda(directory: Path) -> list[str]:
    """Build FAKE_DRIVER as `directory`/libcuda.so; the flags that link a program with it."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "fake.c").write_text(FAKE_DRIVER)
    made = compile_c(c_compiler(), directory / "fake.c", cuda_toolkit_include() or CUDA_MIN,
                     directory, "-shared", "-fPIC", "-std=c11", output=directory / "libcuda.so")
    assert made.returncode == 0, made.stderr
    return [f"-L{directory}", "-lcuda", f"-Wl,-rpath,{directory}"]
