"""Benchmarks: bench_cutile_kernels.py's memory-bound cases: cuTile's layer norm (forward and
backward), RMS norm (its three kernels), transpose, vec_add and FFT kernels (test/kernels/*.py,
unchanged) at the shapes of its test/bench_*.py, launched as those benchmarks launch them, each
with a reference and its peers (torch, Inductor, a device-to-device copy of the same bytes)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import torch
import torch.nn.functional as F
from cutile_common import (
    DTYPES,
    Bench,
    Case,
    Env,
    Impl,
    Selection,
    fill_,
    inductor,
    poison_,
    runner,
)

cdiv = math.ceil
EPS = 1e-5


def size(dt: str) -> int:
    return DTYPES[dt].itemsize


# ----- layer norm (kernels/layer_norm.py, bench_layer_norm.py) ------------------------------------

LAYER_NORM_SHAPES = ((8, 16, 512), (100, 250), (1000, 4000), (2048, 8192), (65536, 16384))
LAYER_NORM_DRY = ((4, 6, 300), (40, 2100))
TILE_N = 1024  # cuTile's CuTileLayerNorm: fixed
GROUP_SIZE_M, TILE_M = 64, 32  # its backward's partial dw/db rows, and their final reduction


def layer_norm_cases(sel: Selection) -> Iterator[Case]:
    # cuTile's bench: bfloat16 and float32 (float16 commented out there: too much shared memory)
    for shape in sel.pick(LAYER_NORM_SHAPES, LAYER_NORM_SHAPES[3:4], LAYER_NORM_DRY):
        for dt in ("bf16",) if sel.quick else ("bf16", "fp32"):
            yield layer_norm_case(shape, dt, backward=False)
            yield layer_norm_case(shape, dt, backward=True)


class LayerNormData:
    """x (cuTile's: -2.3 + 0.5 normal), w, b, dy (0.1 normal), and float32 mean and rstd."""

    def __init__(self, env: Env, shape: tuple, dt: str, backward: bool):
        dev, dtype = env.device, DTYPES[dt]
        self.shape, self.n = shape, shape[-1]
        self.m = math.prod(shape[:-1])
        self.x, self.dy = (torch.empty(shape, dtype=dtype, device=dev) for _ in range(2))
        self.w, self.b = (torch.empty(self.n, dtype=dtype, device=dev) for _ in range(2))
        self.mean, self.rstd = (torch.empty(self.m, dtype=torch.float32, device=dev)
                                for _ in range(2))
        self.backward = backward
        self.saved: tuple = ()  # mean and rstd as aten's forward gives them to its backward

    def redraw(self) -> None:
        fill_(self.x, scale=0.5, shift=-2.3)
        fill_(self.w)
        fill_(self.b)
        fill_(self.dy, scale=0.1)
        rows = self.x.float().reshape(self.m, self.n)
        self.mean.copy_(rows.mean(1))
        self.rstd.copy_(torch.rsqrt(rows.var(1, unbiased=False) + EPS))
        if self.backward:  # their dtype is the device's (float32 on CUDA, the input's on CPUs)
            self.saved = torch.ops.aten.native_layer_norm(self.x, [self.n], self.w, self.b,
                                                          EPS)[1:]

    def forward_reference(self) -> dict:
        y = F.layer_norm(self.x.float(), (self.n,), self.w.float(), self.b.float(), EPS)
        return {"y": y, "mean": self.mean.clone(), "rstd": self.rstd.clone()}

    def backward_reference(self) -> dict:
        # copies: .float() of a float32 input is the input itself, which must not need grad
        x, w, b = (t.detach().to(torch.float32, copy=True).requires_grad_()
                   for t in (self.x, self.w, self.b))
        with torch.enable_grad():
            y = F.layer_norm(x, (self.n,), w, b, EPS)
            dx, dw, db = torch.autograd.grad(y, (x, w, b), self.dy.float())
        return {"dx": dx, "dw": dw, "db": db}

    def stats(self) -> tuple[torch.Tensor, torch.Tensor]:
        """mean and rstd as aten's layer-norm forward saves them for its backward."""
        return self.saved


def layer_norm_case(shape: tuple, dt: str, backward: bool) -> Case:
    n, m = shape[-1], math.prod(shape[:-1])
    if backward:  # reads x, dy, w, mean, rstd; writes dx, dw, db
        moved = size(dt) * (3 * m * n + 3 * n) + 8 * m
        name = "layer_norm_bwd_dx_partial_dwdb + layer_norm_bwd_dwdb"
    else:  # reads x, w, b; writes y, mean, rstd
        moved = size(dt) * (2 * m * n + 2 * n) + 8 * m
        name = "layer_norm_fwd"

    def build(env: Env) -> Bench:
        data = LayerNormData(env, shape, dt, backward)
        mod = env.module("layer_norm")
        if backward:
            ours, peers = layer_norm_backward(env, mod, data)
            return Bench(data.redraw, data.backward_reference, ours, peers)
        y = torch.empty_like(data.x)
        args = (data.x.view(m, n), data.w, data.b, y.view(m, n), data.mean, data.rstd, EPS,
                TILE_N)
        ours = [Impl(f"TILE_N={TILE_N}", runner(env, (m,), mod.layer_norm_fwd, args,
                                                {"y": y, "mean": data.mean, "rstd": data.rstd}),
                     lambda: poison_(y, data.mean, data.rstd))]

        def torch_ln(x, w, b):
            return F.layer_norm(x, (n,), w, b, EPS)

        peers = [Impl("F.layer_norm", lambda: {"y": torch_ln(data.x, data.w, data.b)})]
        if env.inductor:
            compiled = inductor(torch_ln)
            peers.append(Impl("Inductor", lambda: {"y": compiled(data.x, data.w, data.b)}))
        return Bench(data.redraw, data.forward_reference, ours, peers)

    return Case("layer_norm_bwd" if backward else "layer_norm", name, "backward" if backward
                else "forward", "x".join(map(str, shape)), dt, dt, 0.0, moved, "fp32", build)


def layer_norm_backward(env: Env, mod, data: LayerNormData) -> tuple[list[Impl], list[Impl]]:
    """cuTile's CuTileLayerNorm.backward as launches (partial dw/db per GROUP_SIZE_M rows under
    locks, then their sum), and aten's layer-norm backward eagerly and through Inductor (the
    kernels autograd runs, called directly so that CUDA graphs capture them)."""
    m, n = data.m, data.n
    dx = torch.empty_like(data.x)
    dw, db = torch.empty_like(data.w), torch.empty_like(data.b)

    def ours() -> dict:
        partial_dw, partial_db = (torch.zeros((GROUP_SIZE_M, n), dtype=torch.float32,
                                              device=env.device) for _ in range(2))
        locks = torch.zeros(GROUP_SIZE_M, dtype=torch.int32, device=env.device)
        env.launch((m,), mod.layer_norm_bwd_dx_partial_dwdb,
                   (dx.view(m, n), data.dy.view(m, n), partial_dw, partial_db,
                    data.x.view(m, n), data.w, data.mean, data.rstd, locks, TILE_N))
        env.launch((cdiv(n / TILE_N),), mod.layer_norm_bwd_dwdb,
                   (partial_dw, partial_db, dw, db, TILE_M, TILE_N))
        return {"dx": dx, "dw": dw, "db": db}

    def aten_backward(dy, x, w, b, mean, rstd):
        return torch.ops.aten.native_layer_norm_backward(dy, x, [n], mean, rstd, w, b,
                                                         [True, True, True])

    def peer(fn) -> Callable[[], dict]:
        def run() -> dict:
            grads = fn(data.dy, data.x, data.w, data.b, *data.stats())
            return dict(zip(("dx", "dw", "db"), grads, strict=True))
        return run

    peers = [Impl("torch (aten backward)", peer(aten_backward))]
    if env.inductor:
        peers.append(Impl("Inductor", peer(inductor(aten_backward))))
    return [Impl(f"TILE_N={TILE_N}", ours, lambda: poison_(dx, dw, db))], peers


# ----- rms norm (kernels/rms_norm.py, bench_rms_norm.py) ------------------------------------------

RMS_SHAPES = ((65536, 1024), (65536, 2048), (65536, 4096))
RMS_ALGOS = ("regular", "gather", "persistent")
RMS_KERNELS = {"regular": "rms_norm_kernel", "gather": "rms_norm_kernel_gather",
               "persistent": "rms_norm_kernel_static_persistent"}
# from cuTile's search spaces: tile_size 2^7..2^12 with 4 or 8 worker warps; persistent:
# tile_size_m in (2, 4, 8, 16), tile_size_n 2^9..2^14 dividing N
RMS_ALTERNATES = {
    "regular": ((1024, 4), (2048, 8), (4096, 8), (512, 4)),
    "gather": ((1024, 4), (512, 4), (2048, 8), (256, 4)),
    "persistent": ((4, 1024), (8, 1024), (2, 4096), (16, 512)),
}


def rms_label(c: dict) -> str:
    if "tile_size_m" in c:
        return f"{c['tile_size_m']}x{c['tile_size_n']}"
    return f"tile {c['tile_size']} w{c['num_worker_warps']}"


def rms_alternates(algo: str, n: int) -> tuple[dict, ...]:
    if algo == "persistent":
        return tuple({"tile_size_m": tm, "tile_size_n": tn}
                     for tm, tn in RMS_ALTERNATES[algo] if tn <= n and n % tn == 0)
    return tuple({"tile_size": t, "num_worker_warps": w} for t, w in RMS_ALTERNATES[algo])


def rms_norm_cases(sel: Selection) -> Iterator[Case]:
    for shape in sel.pick(RMS_SHAPES, RMS_SHAPES[2:], ((40, 1024),)):
        for dt in ("bf16",) if sel.quick else ("fp16", "fp32", "bf16"):
            for algo in RMS_ALGOS:
                yield rms_norm_case(shape, dt, algo)


def rms_norm_case(shape: tuple, dt: str, algo: str) -> Case:
    m, n = shape

    def build(env: Env) -> Bench:
        dtype = DTYPES[dt]
        x, y = (torch.empty(shape, dtype=dtype, device=env.device) for _ in range(2))
        w = torch.empty(n, dtype=dtype, device=env.device)
        rstd = torch.empty(m, dtype=torch.float32, device=env.device)

        def redraw() -> None:
            fill_(x, "uniform")  # cuTile's: uniform [0, 1)
            fill_(w)

        def reference() -> dict:
            r = torch.rsqrt(x.float().square().mean(1) + EPS)
            return {"y": x.float() * r[:, None] * w.float(), "rstd": r}

        mod = env.module("rms_norm")
        ours = []
        params = {"algo": algo, "dtype": dtype, "shape": shape}
        for label, c in env.configs("rms_norm", params, rms_alternates(algo, n), rms_label):
            if algo == "persistent":
                tm = c["tile_size_m"]
                grid = (min(env.num_sms, cdiv(m / tm)),)
                ours.append(Impl(label, runner(
                    env, grid, mod.rms_norm_kernel_static_persistent,
                    (x, y, w, tm, c["tile_size_n"], n, EPS), {"y": y}), lambda: poison_(y)))
                continue
            kernel = getattr(mod, RMS_KERNELS[algo]).replace_hints(
                num_worker_warps=c["num_worker_warps"])
            ours.append(Impl(label, runner(env, (m,), kernel,
                                           (x, w, y, rstd, n, EPS, c["tile_size"]),
                                           {"y": y, "rstd": rstd}), lambda: poison_(y, rstd)))
        return Bench(redraw, reference, ours, rms_peers(env, x, w, shape, dt))

    # reads x and w, writes y (and, but for the persistent kernel, rstd)
    moved = size(dt) * (2 * m * n + n) + (0 if algo == "persistent" else 4 * m)
    return Case("rms_norm", RMS_KERNELS[algo], algo, f"{m}x{n}", dt, dt, 0.0, moved, "fp32",
                build)


def rms_peers(env: Env, x, w, shape: tuple, dt: str) -> list[Impl]:
    """torch written out (float32 statistics, as cuTile's torch_rms_norm), F.rms_norm, and the
    former through Inductor; one measurement per shape and dtype, shared by the three kernels."""
    def written_out(x, w):
        r = torch.rsqrt(x.float().square().mean(-1, keepdim=True) + EPS)
        return (x.float() * r).to(x.dtype) * w

    key = f"rms|{shape}|{dt}|"
    peers = [Impl("torch", lambda: {"y": written_out(x, w)}, key=key + "torch")]
    if hasattr(F, "rms_norm"):
        peers.append(Impl("F.rms_norm", lambda: {"y": F.rms_norm(x, (shape[1],), w, EPS)},
                          key=key + "F.rms_norm"))
    if env.inductor:
        compiled = inductor(written_out)
        peers.append(Impl("Inductor", lambda: {"y": compiled(x, w)}, key=key + "inductor"))
    return peers


# ----- transpose and vec_add: against a device-to-device copy of the same bytes -------------------

TRANSPOSE_SHAPES = ((1024, 1024), (2048, 8000), (12288, 4096))
TRANSPOSE_ALTERNATES = tuple({"tm": m, "tn": n} for m, n in ((128, 64), (64, 128), (128, 128)))
VEC_ADD_SHAPES = (  # cuTile's bench_vec_add.py: 32 MiB, 128 MiB and 1 GiB, 1-d and 2-d
    (1024 * 1024 * 32,), (1024 * 1024, 32), (1024 * 1024 * 2, 16),
    (1024 * 1024 * 128,), (1024 * 1024, 128), (1024 * 1024 * 4, 32),
    (1024 * 1024 * 1024,), (1024 * 1024, 1024), (1024 * 1024 * 8, 128), (1024 * 1024 * 32, 32))


def copy_peer(env: Env, moved: int, dtype: torch.dtype) -> Impl:
    """A device-to-device copy moving `moved` bytes (read + written): the bandwidth ceiling."""
    src = torch.empty(cdiv(moved / 2 / dtype.itemsize), dtype=dtype, device=env.device)
    fill_(src)
    dst = torch.empty_like(src)

    def run() -> dict:
        dst.copy_(src)
        return {}  # not the same function: nothing to check

    return Impl("copy (same bytes)", run)


def transpose_cases(sel: Selection) -> Iterator[Case]:
    for shape in sel.pick(TRANSPOSE_SHAPES, TRANSPOSE_SHAPES[2:], ((200, 136),)):
        for dt in ("fp16",) if sel.quick else ("fp16", "fp32"):
            yield transpose_case(shape, dt)


def transpose_case(shape: tuple, dt: str) -> Case:
    m, n = shape

    def build(env: Env) -> Bench:
        dtype = DTYPES[dt]
        a = torch.empty((m, n), dtype=dtype, device=env.device)
        b, peer_b = (torch.empty((n, m), dtype=dtype, device=env.device) for _ in range(2))
        kernel = env.module("transpose").transpose_kernel
        ours = []
        for label, c in env.configs("transpose", {}, TRANSPOSE_ALTERNATES,
                                    lambda c: f"{c['tm']}x{c['tn']}"):
            grid = (cdiv(m / c["tm"]), cdiv(n / c["tn"]), 1)
            ours.append(Impl(label, runner(env, grid, kernel, (a, b, c["tm"], c["tn"]),
                                           {"B": b}), lambda: poison_(b)))

        def torch_transpose() -> dict:
            peer_b.copy_(a.t())
            return {"B": peer_b}

        peers = [Impl("torch (copy of x.T)", torch_transpose, lambda: poison_(peer_b)),
                 copy_peer(env, 2 * m * n * size(dt), dtype)]
        return Bench(lambda: fill_(a, "uniform"), lambda: {"B": a.t()}, ours, peers)

    return Case("transpose", "transpose_kernel", "", f"{m}x{n}", dt, "exact", 0.0,
                2 * m * n * size(dt), "fp32", build)


def vec_add_cases(sel: Selection) -> Iterator[Case]:
    quick = (VEC_ADD_SHAPES[3], VEC_ADD_SHAPES[4])
    for shape in sel.pick(VEC_ADD_SHAPES, quick, ((1 << 14,), (512, 32), (64, 100))):
        for dt in ("fp32",) if sel.quick else ("fp16", "fp32"):
            for gather in (False, True):
                if sel.dry and not gather and shape[-1] == 100:
                    continue  # the tiled loads assume whole tiles (cuTile's shapes have them)
                yield vec_add_case(shape, dt, gather)


def vec_add_case(shape: tuple, dt: str, gather: bool) -> Case:
    numel = math.prod(shape)

    def build(env: Env) -> Bench:
        dtype = DTYPES[dt]
        a, b, c, peer_c = (torch.empty(shape, dtype=dtype, device=env.device) for _ in range(4))
        mod = env.module("vec_add")
        if len(shape) == 1:  # as cuTile's vec_add(): the tile and grid from the shape
            tile = min(1024, 2 ** math.ceil(math.log2(shape[0])))
            grid, consts = (cdiv(shape[0] / tile), 1, 1), (tile,)
            kernel = mod.vec_add_kernel_1d_gather if gather else mod.vec_add_kernel_1d
        else:
            tile_y = min(1024, 2 ** math.ceil(math.log2(shape[1])))
            tile_x = 1024 // tile_y
            grid, consts = (cdiv(shape[0] / tile_x), cdiv(shape[1] / tile_y), 1), (tile_x, tile_y)
            kernel = mod.vec_add_kernel_2d_gather if gather else mod.vec_add_kernel_2d
        label = "tile " + "x".join(map(str, consts))
        ours = [Impl(label, runner(env, grid, kernel, (a, b, c, *consts), {"c": c}),
                     lambda: poison_(c))]

        def redraw() -> None:
            fill_(a)
            fill_(b)

        def torch_add() -> dict:
            torch.add(a, b, out=peer_c)
            return {"c": peer_c}

        peers = [Impl("torch.add", torch_add, lambda: poison_(peer_c)),
                 copy_peer(env, 3 * numel * size(dt), dtype)]
        return Bench(redraw, lambda: {"c": a.float() + b.float()}, ours, peers)

    name = f"vec_add_kernel_{len(shape)}d{'_gather' if gather else ''}"
    return Case("vec_add", name, "gather" if gather else "load", "x".join(map(str, shape)), dt,
                dt, 0.0, 3 * numel * size(dt), "fp32", build)


# ----- FFT (kernels/fft.py and kernels/fft_ref.py, bench_fft.py) ---------------------------------

FFT_SHAPES = ((16 * 1024, 16, 16, 16),)  # (batch, F0, F1, F2), N = F0 F1 F2: cuTile's bench_fft
FFT_DRY = ((6, 8, 8, 8),)
FFT_BS, FFT_D = 2, 64  # cuTile's cutile_fft: transforms per block, the packed last dimension
REAL = {"c32": torch.float16, "c64": torch.float32}


def fft_cases(sel: Selection) -> Iterator[Case]:
    for shape in sel.pick(FFT_SHAPES, FFT_SHAPES, FFT_DRY):
        for dt in ("c64",) if sel.quick else ("c32", "c64"):
            for family in ("fft",) if sel.quick else ("fft", "fft_ref"):
                yield fft_case(family, shape, dt)


def twiddles(rows: int, cols: int, period: int, dtype: torch.dtype, device: str) -> torch.Tensor:
    """exp(-2 pi i r c / period) for r < rows, c < cols, as (rows, cols, 2) real pairs."""
    angle = torch.outer(torch.arange(rows, dtype=torch.float64),
                        torch.arange(cols, dtype=torch.float64)) * (-2 * math.pi / period)
    return torch.stack((angle.cos(), angle.sin()), dim=-1).to(device=device, dtype=dtype)


def fft_case(family: str, shape: tuple, dt: str) -> Case:
    """fft_kernel (BS transforms per block, the data packed D to a row) or the reference
    kernel of kernels/fft_ref.py (one transform per block), against torch.fft.fft (cuFFT)."""
    batch, f0, f1, f2 = shape
    n = f0 * f1 * f2

    def build(env: Env) -> Bench:
        x, y = (torch.empty((batch, n), dtype=DTYPES[dt], device=env.device) for _ in range(2))
        real, dev = REAL[dt], env.device
        factors = (twiddles(f0, f0, f0, real, dev), twiddles(f1, f1, f1, real, dev),
                   twiddles(f2, f2, f2, real, dev), twiddles(f0, f1 * f2, n, real, dev),
                   twiddles(f1, f2, f1 * f2, real, dev))
        x_ri, y_ri = torch.view_as_real(x), torch.view_as_real(y)
        if family == "fft":
            packed = (x_ri.view(batch, n * 2 // FFT_D, FFT_D), y_ri.view(batch, n * 2 // FFT_D,
                                                                           FFT_D))
            args = (*packed, *factors, n, f0, f1, f2, FFT_BS, FFT_D)
            grid, label = (cdiv(batch / FFT_BS), 1, 1), f"BS={FFT_BS} D={FFT_D}"
        else:
            args = (x_ri, y_ri, *factors, n, f0, f1, f2)
            grid, label = (batch, 1, 1), "a transform per block"
        kernel = env.module(family).fft_kernel
        ours = [Impl(label, runner(env, grid, kernel, args, {"y": y}), lambda: poison_(y))]
        peers = [Impl("torch.fft.fft (cuFFT)", lambda: {"y": torch.fft.fft(x, dim=-1)})]
        return Bench(lambda: fill_(x, "uniform"),
                     lambda: {"y": torch.fft.fft(x.to(torch.complex128), dim=-1)}, ours, peers)

    moved = 2 * batch * n * 2 * REAL[dt].itemsize  # x read, y written
    return Case(family, "fft_kernel", "", f"{batch}x{n} ({f0}x{f1}x{f2})", dt, dt, 0.0, moved,
                "fp32", build)
