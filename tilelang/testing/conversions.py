"""Testing: random linear layouts and a kernel that converts a tile between two of them.

`convert_kernel_ptx(a, b, shape, dtype)` builds a layout-stage kernel by hand (load a tile of
`shape` in layout `a`, `tile.convert_layout` to `b`, store it) and runs the GPU stages on it, so
property tests can check the generic conversion over any pair of layouts, not only the pairs
the front end happens to produce.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import mlir.ir as ir

from tilelang.backend.ptx import extract_ptx
from tilelang.backend.targets import check_arch
from tilelang.compiler import kernel_shared_bytes
from tilelang.dialect import make_context
from tilelang.language.dtypes import DType
from tilelang.layout import WARP_SIZE, LinearLayout, to_text
from tilelang.passes import pipelines, run_pipeline

KERNEL = "convert"


def random_layout(rng: random.Random, shape: tuple[int, ...], num_warps: int,
                  mix: bool = True) -> LinearLayout:
    """A random layout of the power-of-two `shape` over 32 lanes and `num_warps` warps.

    The coordinate bits are dealt in a random order to lane, warp and register bits; lane and
    warp bits left over are replicas (zero bases). With `mix`, some bases are XORed with others
    (swizzled layouts), which keeps them a basis.
    """
    bits = [(d, b) for d, size in enumerate(shape) for b in range(size.bit_length() - 1)]
    rng.shuffle(bits)
    vectors = [tuple(1 << b if i == d else 0 for i in range(len(shape))) for d, b in bits]
    if mix:
        for i in range(len(vectors)):
            if vectors and rng.random() < 0.3:
                j = rng.randrange(len(vectors))
                if j != i:
                    vectors[i] = tuple(x ^ y for x, y in zip(vectors[i], vectors[j], strict=True))
    zero = (0,) * len(shape)
    counts = {"lane": WARP_SIZE.bit_length() - 1, "warp": num_warps.bit_length() - 1}
    bases: dict[str, list[tuple[int, ...]]] = {"register": [], "lane": [], "warp": []}
    slots = [(d, k) for d, n in counts.items() for k in range(n)]
    rng.shuffle(slots)
    taken = {}
    for slot in slots:  # each thread bit takes a coordinate bit while there are some
        taken[slot] = vectors.pop() if vectors and rng.random() < 0.8 else zero
    for d, n in counts.items():
        bases[d] = [taken[(d, k)] for k in range(n)]
    bases["register"] = vectors
    return LinearLayout(bases, shape)


def warp_local_layout(rng: random.Random, a: LinearLayout, lanes_from_lanes: bool) -> LinearLayout:
    """A random layout holding in each warp the elements that warp holds in `a` (same warp
    bases; register and lane bases re-dealt and XOR-mixed within their span), so that a
    conversion from `a` can stay inside warps.

    With `lanes_from_lanes`, lane bases are drawn from a's lane bases only and registers may
    pick up lane offsets: every register then comes from one source register (one shuffle);
    otherwise lane and register bits trade places (the source register depends on the lane).
    """
    zero = (0,) * a.ndim
    lanes = [v for v in a.bases["lane"] if any(v)]
    regs = list(a.bases["register"])
    replicas = len(a.bases["lane"]) - len(lanes)

    def mixed(vectors: list, extra: list) -> list:
        out = list(vectors)
        rng.shuffle(out)
        for i in range(len(out)):  # XOR in earlier vectors or extras: still a basis of the span
            pool = out[:i] + extra
            if pool and rng.random() < 0.4:
                out[i] = tuple(x ^ y for x, y in zip(out[i], rng.choice(pool), strict=True))
        return out

    if lanes_from_lanes:
        new_lanes, new_regs = mixed(lanes, []), mixed(regs, lanes)
    else:
        pool = mixed(regs + lanes, [])
        new_lanes, new_regs = pool[:len(lanes)], pool[len(lanes):]
    new_lanes += [zero] * replicas
    rng.shuffle(new_lanes)
    return LinearLayout({"register": new_regs, "lane": new_lanes,
                         "warp": list(a.bases["warp"])}, a.shape)


def _array_type(dtype: DType, ndim: int, align: int) -> str:
    strides = ", ".join(["-1"] * (ndim - 1) + ["1"])
    return f"!tile.array<{dtype.mlir}, array<i64: {strides}>, {align} : i64>"


def _tensor(shape: tuple[int, ...], dtype: DType, layout: LinearLayout) -> str:
    dims = "x".join(map(str, shape))
    return f'tensor<{dims}x{dtype.mlir}, #tile.layout<"{to_text(layout)}">>'


def convert_kernel_text(a: LinearLayout, b: LinearLayout, shape: tuple[int, ...], dtype: DType,
                        num_warps: int) -> str:
    """Layout-stage MLIR: y[...] = x[...] for a tile of `shape` (any sizes: the layouts are of
    its padded shape), loaded in layout `a`, converted to `b`, stored."""
    n = len(shape)
    array = _array_type(dtype, n, dtype.itemsize)
    order = ", ".join(map(str, range(n)))
    zeros = ", ".join(["%c0"] * n)
    ta, tb = _tensor(shape, dtype, a), _tensor(shape, dtype, b)
    index = ", ".join(["i32"] * n)
    return f"""
func.func @{KERNEL}(%x: {array}, %y: {array}) attributes {{tile.kernel, tile.num_warps = {num_warps} : i32}} {{
  %c0 = "tile.constant"() {{value = 0 : i32}} : () -> i32
  %t = "tile.load"(%x, {zeros}) {{order = array<i64: {order}>, padding_mode = "zero"}} : ({array}, {index}) -> {ta}
  %c = "tile.convert_layout"(%t) : ({ta}) -> {tb}
  "tile.store"(%y, {zeros}, %c) {{order = array<i64: {order}>}} : ({array}, {index}, {tb}) -> ()
  return
}}"""  # noqa: E501


@dataclass
class ConvertKernel:
    ptx: str
    shared_bytes: int
    threads: int


def convert_kernel_ptx(a: LinearLayout, b: LinearLayout, shape: tuple[int, ...], dtype: DType,
                       num_warps: int, arch: str = "sm_90") -> ConvertKernel:
    chip, features = check_arch(arch)
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(convert_kernel_text(a, b, shape, dtype, num_warps))
        run_pipeline(module, pipelines.SIMT.format(chip=chip, features=features, opt=3, tma=0,
                                                   specialize=0))
        shared = kernel_shared_bytes(module)
        run_pipeline(module, pipelines.LLVM)
        run_pipeline(module, pipelines.PTX)
        return ConvertKernel(extract_ptx(module), shared, 32 * num_warps)
