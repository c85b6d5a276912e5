"""Benchmarks: bench_cutile_kernels.py's matrix-product cases: NVIDIA cuTile's attention,
matmul (plain, persistent, split-K, batched float8), group GEMM and fused MoE kernels
(test/kernels/*.py, unchanged) at the shapes of its test/bench_*.py, launched as those
benchmarks launch them (grid, constants, tuned configurations; the wrappers are written here),
each with a reference and its peers (torch SDPA and its backends, cuBLAS, torch)."""

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
    poison_,
    runner,
    tf32,
)

cdiv = math.ceil


def size(dt: str) -> int:
    return DTYPES[dt].itemsize


# ----- fmha (kernels/attention.py, bench_attention.py) --------------------------------------------

# (q (batch, heads, length, head dim), k and v): cuTile's bench_attention.py
FMHA_SHAPES = (
    ((1, 32, 1024, 128), (1, 32, 1024, 128)), ((1, 32, 1024, 128), (1, 8, 1024, 128)),
    ((1, 32, 8192, 128), (1, 32, 8192, 128)), ((1, 32, 8192, 128), (1, 8, 8192, 128)),
    ((1, 32, 1, 128), (1, 32, 1024, 128)), ((8, 32, 1, 128), (8, 32, 1024, 128)),
    ((1, 32, 1, 128), (1, 8, 1024, 128)), ((8, 32, 1, 128), (8, 8, 1024, 128)))
FMHA_QUICK = (FMHA_SHAPES[2], FMHA_SHAPES[3], FMHA_SHAPES[7])
FMHA_DRY = (((1, 4, 200, 64), (1, 4, 200, 64)), ((1, 4, 200, 64), (1, 2, 200, 64)),
            ((2, 4, 1, 64), (2, 2, 100, 64)))
# from cuTile's search space for it: tile_m, tile_n in (64, 128, 256), occupancy in (1, 2, 4)
FMHA_ALTERNATES = tuple({"tile_m": m, "tile_n": n, "occupancy": o} for m, n, o in (
    (128, 128, 1), (128, 64, 2), (64, 128, 2), (64, 64, 2), (128, 128, 2)))


def fmha_label(c: dict) -> str:
    return f"{c['tile_m']}x{c['tile_n']} occ{c['occupancy']}"


def fmha_cases(sel: Selection) -> Iterator[Case]:
    for qs, ks in sel.pick(FMHA_SHAPES, FMHA_QUICK, FMHA_DRY):
        prefill = qs[2] == ks[2]
        for dt in ("bf16",) if sel.quick else ("fp16", "bf16"):
            for causal in (True, False) if prefill else (False,):
                if sel.quick and prefill and not causal and qs[1] != ks[1]:
                    continue
                yield fmha_case(qs, ks, dt, causal)


def fmha_case(qs: tuple, ks: tuple, dt: str, causal: bool) -> Case:
    b, qh, ql, d = qs
    kh, kl = ks[1], ks[2]
    prefill = ql == kl
    variant = (f"prefill {'causal' if causal else 'full'}" if prefill else "decode") + \
        (" gqa" if qh != kh else "")
    flops = 4.0 * b * qh * ql * kl * d / (2 if causal else 1)
    moved = size(dt) * 2 * (b * qh * ql * d + b * kh * kl * d)

    def build(env: Env) -> Bench:
        dtype = DTYPES[dt]
        q, o = (torch.empty(qs, dtype=dtype, device=env.device) for _ in range(2))
        k, v = (torch.empty(ks, dtype=dtype, device=env.device) for _ in range(2))

        def redraw() -> None:
            for t in (q, k, v):
                fill_(t)

        def reference() -> dict:
            from torch.nn.attention import SDPBackend, sdpa_kernel

            kf, vf = (t.float().repeat_interleave(qh // kh, 1) for t in (k, v))
            with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
                return {"o": F.scaled_dot_product_attention(q.float(), kf, vf, is_causal=causal)}

        fmha = env.module("attention").fmha_kernel
        ours = []
        for label, c in env.configs("fmha", {"is_causal": causal}, FMHA_ALTERNATES, fmha_label):
            tm, tn = c["tile_m"], c["tile_n"]
            # as cuTile's cutile_fmha: the query block at input_pos (decode: the last key)
            args = (q, k, v, o, 1 / math.sqrt(d), 0 if prefill else kl - 1, d, qh, tm, tn,
                    qh // kh, causal, kl % tn == 0)
            kernel = fmha.replace_hints(occupancy=c["occupancy"])
            ours.append(Impl(label, runner(env, (cdiv(ql / tm), b * qh, 1), kernel, args,
                                           {"o": o}), lambda: poison_(o)))
        return Bench(redraw, reference, ours, sdpa_peers(env, q, k, v, causal))

    return Case("fmha", "fmha_kernel", variant, f"b{b} h{qh}/{kh} q{ql} k{kl} d{d}", dt,
                f"attn-{dt}", flops, moved, "fp16", build)


def sdpa_peers(env: Env, q, k, v, causal: bool) -> list[Impl]:
    """torch SDPA: its own choice of backend (named), and forced to cuDNN and to flash."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    extra = {"enable_gqa": True} if q.shape[1] != k.shape[1] else {}

    def sdpa(backends: list | None) -> Callable[[], dict]:
        def run() -> dict:
            if backends is None:
                return {"o": F.scaled_dot_product_attention(q, k, v, is_causal=causal, **extra)}
            with sdpa_kernel(backends):
                return {"o": F.scaled_dot_product_attention(q, k, v, is_causal=causal, **extra)}
        return run

    peers = [Impl(f"SDPA ({sdpa_choice(q, k, v, causal, extra)})", sdpa(None))]
    if env.device == "cuda":
        peers += [Impl("SDPA cuDNN", sdpa([SDPBackend.CUDNN_ATTENTION])),
                  Impl("SDPA flash", sdpa([SDPBackend.FLASH_ATTENTION]))]
    return peers


def sdpa_choice(q, k, v, causal: bool, extra: dict) -> str:
    """The backend torch's SDPA dispatcher picks for these inputs."""
    from torch.nn.attention import SDPBackend

    names = {int(b): name.lower().removesuffix("_attention")
             for name, b in SDPBackend.__members__.items()}
    try:
        return names.get(int(torch._fused_sdp_choice(q, k, v, is_causal=causal, **extra)),
                         "other")
    except Exception:  # a private function; its keywords vary between versions
        return "default"


# ----- the matmul family (kernels/matmul.py, bench_matmul.py) -------------------------------------

MATMUL_SHAPES = ((1024, 1024, 1024), (8192, 8192, 8192), (12288, 4096, 2560))  # (m, n, k)
SPLIT_K_SHAPES = ((256, 256, 4096), (128, 128, 8192))
BATCH_SHAPES = ((2, 1024, 1024, 1024), (4, 8192, 8192, 2000), (8, 12288, 4096, 2560))
# from cuTile's search space: tm, tn in (128, 256), tk in (32, 64, 128), num_ctas in (1, 2)
MATMUL_ALTERNATES = tuple({"tm": m, "tn": n, "tk": k, "num_ctas": 1} for m, n, k in (
    (128, 128, 64), (128, 256, 64), (256, 128, 64), (128, 128, 32)))
# float8 rows of 128 bytes need tk = 128 (wgmma's 8-bit operands: one swizzle row)
FP8_MATMUL_ALTERNATES = tuple({"tm": m, "tn": n, "tk": k, "num_ctas": 1} for m, n, k in (
    (128, 128, 128), (256, 128, 128), (128, 128, 64)))
BATCH_ALTERNATES = tuple({"tm": m, "tn": n, "tk": k, "num_ctas": 1} for m, n, k in (
    (128, 128, 128), (128, 256, 128), (128, 128, 64)))
# tm in (32, 64), tn in (64, 128), tk in (128, 256), split_k in (2, 4, 8)
SPLIT_K_ALTERNATES = tuple({"tm": m, "tn": n, "tk": k, "split_k": s} for m, n, k, s in (
    (64, 128, 128, 4), (64, 64, 256, 4), (32, 64, 128, 8), (64, 128, 256, 2)))


def gemm_label(c: dict) -> str:
    extra = f" split{c['split_k']}" if "split_k" in c else \
        f" ctas{c['num_ctas']}" if c.get("num_ctas", 1) != 1 else ""
    return f"{c['tm']}x{c['tn']}x{c['tk']}{extra}"


def gemm_tol(dt: str) -> str:
    return {"fp32": "tf32", "fp16": "fp16", "bf16": "bf16"}.get(dt, "fp8")


def gemm_peak(dt: str) -> str:
    return {"fp32": "tf32", "fp16": "fp16", "bf16": "fp16"}.get(dt, "fp8")


def out_dtype(dt: str) -> torch.dtype:
    """cuTile's matmul benchmarks store float8 products as float32, the rest in their dtype."""
    return torch.float32 if dt.startswith("fp8") else DTYPES[dt]


class Gemm:
    """A (batched) product's buffers: A @ B into C, a reference in float64, cuBLAS peers."""

    def __init__(self, env: Env, a_shape: tuple, b_shape: tuple, dt: str, kind: str = "normal",
                 b_columns: bool = False, a_columns: bool = False):
        """b_columns: B is also kept column-major (`b_cols.t()`), for every dtype; a_columns:
        A is column-major (`x.t()` of a (K, M) tensor; the peers read the same view)."""
        dev, dtype = env.device, DTYPES[dt]
        self.dt, self.kind = dt, kind
        self.a = torch.empty(a_shape[::-1], dtype=dtype, device=dev).t() if a_columns else \
            torch.empty(a_shape, dtype=dtype, device=dev)
        self.b = torch.empty(b_shape, dtype=dtype, device=dev)
        c_shape = (*a_shape[:-1], b_shape[-1])
        self.c = torch.empty(c_shape, dtype=out_dtype(dt), device=dev)
        self.peer_c = torch.empty_like(self.c)
        # float8 peers: B column-major for torch._scaled_mm, and bfloat16 copies (exact)
        self.b_cols = torch.empty((*b_shape[:-2], b_shape[-1], b_shape[-2]), dtype=dtype,
                                  device=dev) if dt.startswith("fp8") or b_columns else None
        self.wide = None

    def redraw(self) -> None:
        fill_(self.a, self.kind)
        fill_(self.b, self.kind)
        if self.b_cols is not None:
            self.b_cols.copy_(self.b.transpose(-1, -2))
            if self.dt.startswith("fp8"):
                self.wide = (self.a.to(torch.bfloat16), self.b.to(torch.bfloat16))

    def reference(self) -> dict:
        return {"C": torch.matmul(self.a.double(), self.b.double())}

    def poison(self) -> None:
        poison_(self.c)

    def peers(self) -> list[Impl]:
        if not self.dt.startswith("fp8"):
            b = self.b if self.b_cols is None else self.b_cols.transpose(-1, -2)  # ours' layout

            def cublas() -> dict:
                if self.dt == "fp32":
                    with tf32():
                        torch.matmul(self.a, b, out=self.peer_c)
                else:
                    torch.matmul(self.a, b, out=self.peer_c)
                return {"C": self.peer_c}
            name = "cuBLAS tf32" if self.dt == "fp32" else "cuBLAS"
            return [Impl(name, cublas, lambda: poison_(self.peer_c))]
        peers = [Impl("cuBLAS bf16 (fp8 upcast)", self.bf16_product)]
        if self.dt == "fp8e4m3":  # cuBLAS has no e5m2 x e5m2 product
            peers.insert(0, Impl("torch._scaled_mm", self.scaled_mm))
        return peers

    def scaled_mm(self) -> dict:
        one = torch.ones((), device=self.a.device, dtype=torch.float32)
        if self.a.dim() == 2:
            return {"C": torch._scaled_mm(self.a, self.b_cols.t(), scale_a=one, scale_b=one,
                                          out_dtype=torch.float32)}
        for i in range(self.a.shape[0]):  # one call per batch, as cuTile's torch_batch_matmul
            self.peer_c[i] = torch._scaled_mm(self.a[i], self.b_cols[i].t(), scale_a=one,
                                              scale_b=one, out_dtype=torch.float32)
        return {"C": self.peer_c}

    def bf16_product(self) -> dict:
        return {"C": torch.matmul(*self.wide)}


def matmul_cases(sel: Selection) -> Iterator[Case]:
    shapes = sel.pick(MATMUL_SHAPES, (MATMUL_SHAPES[1],), ((200, 136, 100),))
    dtypes = ("fp16",) if sel.quick else ("fp16", "fp32", "fp8e4m3")
    for family in ("matmul", "persistent_matmul"):
        for m, n, k in shapes:
            for dt in dtypes:
                if family == "matmul" or not dt.startswith("fp8"):
                    yield matmul_case(family, m, n, k, dt)
    # B given column-major (a linear layer's `w.t()`; the layout torch._scaled_mm takes), and
    # A (a weight gradient's `dy.t()`)
    for m, n, k in sel.pick(MATMUL_SHAPES[1:], (MATMUL_SHAPES[1],), ((200, 136, 104),)):
        for dt in ("bf16",) if sel.quick else ("bf16", "fp8e4m3"):
            yield matmul_case("matmul", m, n, k, dt, b_columns=True)
            if dt == "fp8e4m3":  # _scaled_mm's layout, the persistent spelling too
                yield matmul_case("persistent_matmul", m, n, k, dt, b_columns=True)
        yield matmul_case("matmul", m, n, k, "bf16", a_columns=True)


def matmul_case(family: str, m: int, n: int, k: int, dt: str, b_columns: bool = False,
                a_columns: bool = False) -> Case:
    """matmul_kernel or persistent_matmul_kernel; float8 (the issue's target, against
    torch._scaled_mm) is not in cuTile's bench_matmul.py. b_columns: B is passed as the
    transposed view of an (N, K) tensor, as a linear layer's weights are; a_columns: A as the
    transposed view of a (K, M) tensor."""
    persistent = family == "persistent_matmul"

    def build(env: Env) -> Bench:
        g = Gemm(env, (m, k), (k, n), dt, "normal", b_columns, a_columns)
        b = g.b_cols.t() if b_columns else g.b
        mod = env.module("matmul")
        kernel = mod.persistent_matmul_kernel if persistent else mod.matmul_kernel
        ours = []
        alternates = FP8_MATMUL_ALTERNATES if dt.startswith("fp8") else MATMUL_ALTERNATES
        for label, c in env.configs(family, {}, alternates, gemm_label):
            tm, tn, tk = c["tm"], c["tn"], c["tk"]
            tiles = cdiv(m / tm) * cdiv(n / tn)
            grid = (min(env.num_sms, tiles),) if persistent else (tiles, 1, 1)
            ours.append(Impl(label, runner(env, grid, kernel.replace_hints(
                num_ctas=c["num_ctas"]), (g.a, b, g.c, tm, tn, tk), {"C": g.c}), g.poison))
        return Bench(g.redraw, g.reference, ours, g.peers())

    name = "persistent_matmul_kernel" if persistent else "matmul_kernel"
    variant = "B = w.t()" if b_columns else "A = x.t()" if a_columns else ""
    return Case(family, name, variant, f"{m}x{n}x{k}", dt, gemm_tol(dt), 2.0 * m * n * k,
                size(dt) * (m * k + k * n) + out_dtype(dt).itemsize * m * n, gemm_peak(dt),
                build)


def split_k_cases(sel: Selection) -> Iterator[Case]:
    for m, n, k in sel.pick(SPLIT_K_SHAPES, SPLIT_K_SHAPES[:1], ((96, 80, 600),)):
        for dt in ("fp16",) if sel.quick else ("fp16", "fp32"):
            yield split_k_case(m, n, k, dt)


def split_k_case(m: int, n: int, k: int, dt: str) -> Case:
    def build(env: Env) -> Bench:
        g = Gemm(env, (m, k), (k, n), dt, "normal")
        configs = env.configs("matmul_split_k", {}, SPLIT_K_ALTERNATES, gemm_label)
        # one lock and one count per output tile, for the configuration with the most tiles
        # (as cuTile's bench sizes them over its search space); both return to 0 after a launch
        tiles = max(cdiv(m / c["tm"]) * cdiv(n / c["tn"]) for _, c in configs) if configs else 1
        locks = torch.zeros(max(tiles, cdiv(m / 32) * cdiv(n / 64)), dtype=torch.int32,
                            device=env.device)
        counts = torch.zeros_like(locks)
        kernel = env.module("matmul").matmul_split_k_kernel
        ours = []
        for label, c in configs:
            tm, tn, tk, split = c["tm"], c["tn"], c["tk"], c["split_k"]
            grid = (cdiv(m / tm) * cdiv(n / tn), split, 1)
            ours.append(Impl(label, runner(env, grid, kernel, (g.a, g.b, g.c, locks, counts, tm,
                                                               tn, tk, split), {"C": g.c}),
                             g.poison))
        return Bench(g.redraw, g.reference, ours, g.peers())

    return Case("split_k", "matmul_split_k_kernel", "", f"{m}x{n}x{k}", dt, gemm_tol(dt),
                2.0 * m * n * k, size(dt) * (m * k + k * n + m * n), gemm_peak(dt), build)


def batch_matmul_cases(sel: Selection) -> Iterator[Case]:
    for shape in sel.pick(BATCH_SHAPES, BATCH_SHAPES[1:2], ((2, 72, 40, 96),)):
        for dt in ("fp8e4m3",) if sel.quick else ("fp8e4m3", "fp8e5m2"):
            yield batch_matmul_case(*shape, dt)


def batch_matmul_case(b: int, m: int, n: int, k: int, dt: str) -> Case:
    def build(env: Env) -> Bench:
        g = Gemm(env, (b, m, k), (b, k, n), dt, "uniform")  # cuTile's: uniform [0, 1)
        kernel = env.module("matmul").batch_matmul_kernel
        ours = []
        for label, c in env.configs("batch_matmul", {}, BATCH_ALTERNATES, gemm_label):
            tm, tn, tk = c["tm"], c["tn"], c["tk"]
            grid = (b, cdiv(m / tm), cdiv(n / tn))
            ours.append(Impl(label, runner(env, grid, kernel.replace_hints(
                num_ctas=c["num_ctas"]), (g.a, g.b, g.c, tm, tn, tk), {"C": g.c}), g.poison))
        return Bench(g.redraw, g.reference, ours, g.peers())

    return Case("batch_matmul", "batch_matmul_kernel", "", f"{b}x{m}x{n}x{k}", dt, "fp8",
                2.0 * b * m * n * k, b * (m * k + k * n) + 4 * b * m * n, "fp8", build)


# ----- group GEMM (kernels/group_gemm.py, test_group_gemm.py) -------------------------------------

# (m, n, k) of each product. cuTile has no benchmark of this kernel (its test runs tiny
# products): 8 equal products, and 8 of growing m against n = k = 4096 (as an MoE's experts)
GROUP_SHAPES = (("8 equal", ((2048, 2048, 2048),) * 8),
                ("8 ragged", tuple((m, 4096, 4096) for m in range(256, 2049, 256))))
GROUP_DRY = (("3 ragged", ((40, 24, 72), (64, 64, 64), (17, 80, 33))),)
GROUP_CONFIGS = tuple({"tm": m, "tn": n, "tk": k} for m, n, k in (
    (128, 128, 64), (128, 256, 64), (64, 128, 64), (64, 64, 64)))


def group_gemm_cases(sel: Selection) -> Iterator[Case]:
    for variant, groups in sel.pick(GROUP_SHAPES, GROUP_SHAPES[1:], GROUP_DRY):
        for dt in ("fp16",) if sel.quick else ("fp16", "bf16"):
            yield group_gemm_case(variant, groups, dt)


def group_gemm_case(variant: str, groups: tuple, dt: str) -> Case:
    """grouped_matmul_kernel launched as cuTile's test_group_gemm launches it: one block per SM,
    the SM count also its num_sm constant; against one cuBLAS product per group."""
    def build(env: Env) -> Bench:
        dtype, dev = DTYPES[dt], env.device
        a_list = [torch.empty((m, k), dtype=dtype, device=dev) for m, _, k in groups]
        b_list = [torch.empty((k, n), dtype=dtype, device=dev) for _, n, k in groups]
        c_list, peer_c = ([torch.empty((m, n), dtype=dtype, device=dev) for m, n, _ in groups]
                          for _ in range(2))

        def redraw() -> None:
            for t in (*a_list, *b_list):
                fill_(t)

        def reference() -> dict:
            return {f"C{i}": a.double() @ b.double()
                    for i, (a, b) in enumerate(zip(a_list, b_list, strict=True))}

        kernel = env.module("group_gemm").grouped_matmul_kernel
        outputs = {f"C{i}": c for i, c in enumerate(c_list)}
        ours = [Impl(label, runner(env, (env.num_sms,), kernel,
                                   (a_list, b_list, c_list, env.num_sms, c["tm"], c["tn"],
                                    c["tk"]), outputs), lambda: poison_(*c_list))
                for label, c in env.configs(None, {}, GROUP_CONFIGS, gemm_label)]

        def cublas() -> dict:
            for a, b, c in zip(a_list, b_list, peer_c, strict=True):
                torch.matmul(a, b, out=c)
            return {f"C{i}": c for i, c in enumerate(peer_c)}

        peers = [Impl("cuBLAS (a product per group)", cublas, lambda: poison_(*peer_c))]
        return Bench(redraw, reference, ours, peers)

    flops = sum(2.0 * m * n * k for m, n, k in groups)
    moved = size(dt) * sum(m * k + k * n + m * n for m, n, k in groups)
    shape = f"{len(groups)}x " + ",".join(sorted({f"{m}" for m, _, _ in groups}, key=int)) + \
        f" x{groups[0][1]}x{groups[0][2]}"
    return Case("group_gemm", "grouped_matmul_kernel", variant, shape, dt, dt, flops, moved,
                "fp16", build)


# ----- fused MoE (kernels/fused_moe.py, bench_moe.py) ---------------------------------------------

# (tokens, hidden size, experts, intermediate size, top k): cuTile's bench_moe.py
MOE_SHAPES = ((110, 1024, 16, 512, 4), (256, 2048, 1408, 32, 6))
MOE_DRY = ((12, 64, 4, 32, 2),)
MOE_TILES = (128, 128, 64)  # cuTile's cutile_moe: tile_m, tile_n, tile_k


def moe_cases(sel: Selection) -> Iterator[Case]:
    for shape in sel.pick(MOE_SHAPES, MOE_SHAPES[1:], MOE_DRY):
        for dt in ("bf16",) if sel.quick else ("fp16", "bf16", "fp32"):
            yield moe_case(shape, dt)


def moe_case(shape: tuple, dt: str) -> Case:
    """cuTile's MoE layer as its bench_moe runs it (fused_moe_kernel for gate/up,
    silu_and_mul_kernel, fused_moe_kernel for down and the routing weights, a torch sum over
    the top k), against torch. The routing (tokens sorted by expert with cuTile's own
    moe_align_tile_size_torch, a host loop over the experts: about 180 ms at 1408 experts,
    which cuTile's bench times with the kernels) is done once per draw, outside the timing, and
    the layer is timed as CUDA-graph replays; the torch peers take the same routing as given."""
    tokens, hidden_size, experts, inter, topk = shape

    def build(env: Env) -> Bench:
        dtype, dev = DTYPES[dt], env.device
        hidden = torch.empty((tokens, hidden_size), dtype=dtype, device=dev)
        w1 = torch.empty((experts, 2 * inter, hidden_size), dtype=dtype, device=dev)
        w2 = torch.empty((experts, hidden_size, inter), dtype=dtype, device=dev)
        weights = torch.empty((tokens, topk), dtype=dtype, device=dev)
        ids = torch.empty((tokens, topk), dtype=torch.int64, device=dev)
        mod = env.module("fused_moe")
        routing: dict = {}

        def redraw() -> None:
            fill_(hidden, scale=0.5)
            fill_(w1, scale=0.1)
            fill_(w2, scale=0.1)
            ids.copy_(torch.rand(tokens, experts, device=dev).argsort(dim=1)[:, :topk])
            weights.copy_(torch.softmax(torch.randn(tokens, topk, device=dev), dim=-1))
            routing["tiles"] = mod.moe_align_tile_size_torch(ids, MOE_TILES[0], experts)
            routing["experts"] = expert_groups(ids, experts)

        def reference() -> dict:
            return {"out": torch_moe(*(t.float() for t in (hidden, w1, w2, weights)),
                                     routing["experts"])}

        ours = Impl("x".join(map(str, MOE_TILES)),
                    lambda: {"out": moe_layer(env, mod, hidden, w1, w2, weights, ids,
                                              *routing["tiles"])})
        peers = [Impl("torch (a loop over the experts)",
                      lambda: {"out": torch_moe(hidden, w1, w2, weights, routing["experts"])},
                      graph=False),
                 Impl("torch (weights gathered per token, bmm)",
                      lambda: {"out": torch_moe_gathered(hidden, w1, w2, weights, ids)})]
        return Bench(redraw, reference, [ours], peers)

    flops = 6.0 * tokens * topk * hidden_size * inter
    active = experts * (1 - (1 - topk / experts) ** tokens)  # experts expected to get a token
    moved = size(dt) * (active * 3 * inter * hidden_size + 2 * tokens * hidden_size)
    return Case("moe", "fused_moe_kernel x2 + silu_and_mul_kernel", "",
                f"t{tokens} h{hidden_size} e{experts} i{inter} top{topk}", dt,
                "tf32" if dt == "fp32" else f"moe-{dt}", flops, moved, gemm_peak(dt), build)


def moe_layer(env: Env, mod, hidden, w1, w2, weights, ids, sorted_ids, expert_ids
              ) -> torch.Tensor:
    tokens, hidden_size = hidden.shape
    inter = w2.shape[2]
    topk = ids.shape[1]
    # cuTile's bench allocates its intermediates with zeros; NaN here (the same cost), so that
    # a row a kernel leaves unwritten fails the check
    gate_up, act, down = (torch.full(s, float("nan"), dtype=hidden.dtype, device=hidden.device)
                          for s in ((tokens, topk, 2 * inter), (tokens * topk, inter),
                                    (tokens, topk, hidden_size)))
    moe_product(env, mod, hidden, w1, gate_up, weights, sorted_ids, expert_ids, False, topk)
    rows = gate_up.view(-1, 2 * inter)
    gate, up = rows.chunk(2, dim=-1)
    env.launch((rows.shape[0],), mod.silu_and_mul_kernel,
               (gate, up, act, 1 << (inter - 1).bit_length()))
    moe_product(env, mod, act, w2, down, weights, sorted_ids, expert_ids, True, 1)
    return down.sum(dim=1)


def moe_product(env: Env, mod, a, b, c, weights, sorted_ids, expert_ids, weighted: bool,
                replicas: int) -> None:
    tile_m, tile_n, tile_k = MOE_TILES
    grid = (cdiv(sorted_ids.shape[0] / tile_m) * cdiv(b.shape[1] / tile_n),)
    env.launch(grid, mod.fused_moe_kernel,
               (a, b, c.view(-1, c.shape[2]), weights.view(-1), sorted_ids, expert_ids,
                replicas, weighted, tile_m, tile_n, tile_k))


def expert_groups(ids, experts: int) -> list[tuple[int, torch.Tensor, torch.Tensor]]:
    """(expert, its (token, k) pairs as flat indices, their tokens) for each expert with a
    token: the routing of the torch peers, computed with the draw (it reads counts back)."""
    topk = ids.shape[1]
    flat = ids.reshape(-1)
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=experts).tolist()
    groups, start = [], 0
    for expert, count in enumerate(counts):
        if count:
            pairs = order[start:start + count]
            groups.append((expert, pairs, pairs // topk))
            start += count
    return groups


def torch_moe(hidden, w1, w2, weights, groups) -> torch.Tensor:
    """Per expert: its tokens' gate/up product, SiLU(gate) * up, the down product, scaled by
    the routing weight and added (in float32) into each token's row."""
    out = torch.zeros(hidden.shape, dtype=torch.float32, device=hidden.device)
    flat_weights = weights.reshape(-1)
    for expert, pairs, tokens in groups:
        gate, up = (hidden[tokens] @ w1[expert].t()).chunk(2, dim=-1)
        down = (F.silu(gate) * up) @ w2[expert].t()
        out.index_add_(0, tokens, (down * flat_weights[pairs, None]).float())
    return out.to(hidden.dtype)


def torch_moe_gathered(hidden, w1, w2, weights, ids) -> torch.Tensor:
    """Without a loop: each (token, k) pair's expert weights gathered, two batched products
    of one column each, the top k summed."""
    tokens, topk = ids.shape
    flat = ids.reshape(-1)
    x = hidden.repeat_interleave(topk, dim=0).unsqueeze(-1)  # pair p is token p // topk
    gate, up = torch.bmm(w1[flat], x).squeeze(-1).chunk(2, dim=-1)
    act = (F.silu(gate) * up).unsqueeze(-1)
    down = torch.bmm(w2[flat], act).squeeze(-1) * weights.reshape(-1, 1)
    return down.view(tokens, topk, -1).sum(dim=1)
