"""Benchmark: row reductions that are memory-bound: softmax, layer norm (forward and backward)
and RMS norm, fp32 and bf16, over rows of 1024 to 65536 elements (2^28 elements per input).

Reported as GB/s (the bytes each kernel must move: every input read once, every output written
once, over the median device time) and as a fraction of the device-to-device copy bandwidth
measured in the same run, next to torch eager, torch.compile (Inductor) and Triton kernels
written here in the style of its tutorials. Each implementation is checked against torch on
fresh random data with its outputs poisoned first; tile configurations are swept for tilelang
and Triton alike and the best of each is reported.
    python benchmarks/bench_reductions.py [--quick] [--only softmax,layer_norm,...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from common import bar_plot, copy_bandwidth, device_ms, driver_resources, save, table

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
from _split_rows import Workspace
from _split_rows import launch as split_launch
from layer_norm import (
    Backward,
    backward,
    layer_norm_fwd,
    layer_norm_fwd_looped,
    layer_norm_fwd_split,
    split_backward,
)
from rms_norm import rms_norm, rms_norm_looped, rms_norm_split
from softmax import softmax_looped, softmax_rows, softmax_split

TOTAL = 1 << 28  # elements per input
WIDTHS = (1024, 4096, 16384, 65536)
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
EPS = 1e-5
VERBOSE = False  # --verbose: every configuration's time, not only the best



def tilelang_row_configs(n: int):
    """(ROWS, BLOCK, warps, occupancy) for kernels holding whole rows: up to 16384 elements
    per block. Where a thread holds 32 or more elements, also with 2 blocks per SM asked for
    (`occupancy=2` caps the registers so that a second row is in flight)."""
    block = 1 << (n - 1).bit_length()
    for elems in (2048, 4096, 8192, 16384):
        for warps in (4, 8, 16, 32):
            rows = elems // block
            per_thread = elems // (32 * warps)
            if rows >= 1 and 8 <= per_thread <= 64:
                for occupancy in (None, 2) if per_thread >= 32 else (None,):
                    yield rows, block, warps, occupancy


def hinted(kernel, warps: int, occupancy: int | None):
    return kernel.replace_hints(num_warps=warps, occupancy=occupancy)


def label(config: str, occupancy: int | None) -> str:
    return config if occupancy is None else f"{config},occ={occupancy}"


# (BLOCK, warps, occupancy) of the looped kernels, for rows over 16384
# (BLOCK, warps, occupancy, blocks per SM) of the looped kernels, whose blocks stride over the
# rows: None blocks per SM launches one block per row; 1 or 2 keep few rows in flight, so that
# the second sweep over a row reads it from L2.
LOOPED_CONFIGS = tuple((block, warps, None, per_sm) for block, warps in
                       ((4096, 8), (8192, 16), (8192, 32), (16384, 32))
                       for per_sm in (None, 1, 2))


def looped_configs(n: int):
    return LOOPED_CONFIGS if n > 16384 else ()


def looped_grid(rows: int, per_sm: int | None) -> int:
    if per_sm is None:
        return rows
    return min(rows, per_sm * torch.cuda.get_device_properties(0).multi_processor_count)


def looped_label(block: int, warps: int, occupancy: int | None, per_sm: int | None) -> str:
    grid = "rows" if per_sm is None else f"{per_sm}/SM"
    return label(f"looped B={block},w={warps},grid={grid}", occupancy)


# (BLOCK, warps, occupancy, blocks per SM) of the split kernels (groups of a block per
# BLOCK-column chunk of a row exchanging partial sums, striding over the rows), for rows over
# 16384
SPLIT_CONFIGS = ((4096, 4, None, 4), (4096, 4, None, 3), (4096, 8, None, 2), (8192, 8, None, 2),
                 (8192, 8, 2, 2), (16384, 16, None, 1))


def split_configs(kernel, x, k: int, args: tuple):
    """(label, launch, kernel) of a split kernel over SPLIT_CONFIGS; `args` are its parameters
    before the workspace (made here, K = k partial sums per chunk)."""
    rows, n = x.shape
    if n <= 16384:
        return []
    stream = torch.cuda.current_stream()
    out = []
    for block, warps, occ, per_sm in SPLIT_CONFIGS:
        ws = Workspace.for_rows(rows, n, block, k)
        config = (block, warps, per_sm, occ)
        out.append((label(f"split B={block},w={warps},{per_sm}/SM", occ),
                    lambda c=config, ws=ws: split_launch(stream, kernel, rows, n, k, args, c, ws),
                    hinted(kernel, warps, occ)))  # the variant split_launch runs
    return out


# ----- Triton kernels in the style of its tutorials ----------------------------------------------


def triton_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def softmax(x, y, n, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        v = tl.load(x + row * n + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
        e = tl.exp(v - tl.max(v, axis=0))
        tl.store(y + row * n + cols, (e / tl.sum(e, axis=0)).to(y.dtype.element_ty), mask=cols < n)

    @triton.jit
    def layer_norm(x, w, b, y, n, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n
        v = tl.load(x + row * n + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(v, axis=0) / n
        d = tl.where(mask, v - mean, 0.0)
        rstd = 1 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
        wv = tl.load(w + cols, mask=mask).to(tl.float32)
        bv = tl.load(b + cols, mask=mask).to(tl.float32)
        tl.store(y + row * n + cols, (d * rstd * wv + bv).to(y.dtype.element_ty), mask=mask)

    @triton.jit
    def rms_norm_kernel(x, w, y, n, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n
        v = tl.load(x + row * n + cols, mask=mask, other=0.0).to(tl.float32)
        r = 1 / tl.sqrt(tl.sum(v * v, axis=0) / n + eps)
        wv = tl.load(w + cols, mask=mask).to(tl.float32)
        tl.store(y + row * n + cols, (v * r * wv).to(y.dtype.element_ty), mask=mask)

    @triton.jit
    def layer_norm_bwd_dx_fused(dx, dy, dw, db, x, w, mean, rstd, lock, n,
                                GROUP: tl.constexpr, BLOCK: tl.constexpr):
        # the tutorial's backward: one program per row writes dx, then adds its dw and db terms
        # to one of GROUP partial rows (row % GROUP) under a spin lock
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n
        off = row.to(tl.int64) * n
        v = tl.load(x + off + cols, mask=mask, other=0).to(tl.float32)
        g = tl.load(dy + off + cols, mask=mask, other=0).to(tl.float32)
        wv = tl.load(w + cols, mask=mask).to(tl.float32)
        xhat = tl.where(mask, (v - tl.load(mean + row)) * tl.load(rstd + row), 0.0)
        gw = tl.where(mask, wv * g, 0.0)
        c1 = tl.sum(xhat * gw, axis=0) / n
        c2 = tl.sum(gw, axis=0) / n
        d = (gw - (xhat * c1 + c2)) * tl.load(rstd + row)
        tl.store(dx + off + cols, d.to(dx.dtype.element_ty), mask=mask)
        slot = row % GROUP
        part_dw = g * xhat
        part_db = g
        while tl.atomic_cas(lock + slot, 0, 1) == 1:
            pass
        count = lock + GROUP + slot
        if tl.load(count) == 0:
            tl.atomic_xchg(count, 1)
        else:
            part_dw += tl.load(dw + slot * n + cols, mask=mask)
            part_db += tl.load(db + slot * n + cols, mask=mask)
        tl.store(dw + slot * n + cols, part_dw, mask=mask)
        tl.store(db + slot * n + cols, part_db, mask=mask)
        tl.atomic_xchg(lock + slot, 0)

    @triton.jit
    def layer_norm_bwd_dwdb(dw, db, final_dw, final_db, m, n, BM: tl.constexpr,
                            BN: tl.constexpr):
        cols = tl.program_id(0) * BN + tl.arange(0, BN)
        acc_w = tl.zeros((BM, BN), dtype=tl.float32)
        acc_b = tl.zeros((BM, BN), dtype=tl.float32)
        for i in range(0, m, BM):
            r = i + tl.arange(0, BM)
            mask = (r[:, None] < m) & (cols[None, :] < n)
            offs = r[:, None] * n + cols[None, :]
            acc_w += tl.load(dw + offs, mask=mask, other=0.0)
            acc_b += tl.load(db + offs, mask=mask, other=0.0)
        tl.store(final_dw + cols, tl.sum(acc_w, axis=0).to(final_dw.dtype.element_ty),
                 mask=cols < n)
        tl.store(final_db + cols, tl.sum(acc_b, axis=0).to(final_db.dtype.element_ty),
                 mask=cols < n)

    def layer_norm_bwd_configs(rows, n, dy, x, w, mean, rstd, dx, dw, db):
        """The tutorial's launch: GROUP partial rows by width, its warp count, and the limit of
        64 KB per row (no kernel beyond); partial sums in float32 here (the tutorial keeps
        them in w's dtype); also 2x and 1/2x its GROUP."""
        block = triton.next_power_of_2(n)
        if block > 65536 // x.element_size():
            return
        group = 64 if n > 8192 else 96 if n > 4096 else 128 if n > 1024 else 256
        warps = min(max(block // 256, 1), 8)
        for grp in (group // 2, group, group * 2):
            locks = torch.zeros(2 * grp, dtype=torch.int32, device="cuda")
            parts = torch.empty(2, grp, n, device="cuda")

            def fn(grp=grp, locks=locks, parts=parts):
                locks.zero_()
                layer_norm_bwd_dx_fused[(rows,)](dx, dy, parts[0], parts[1], x, w, mean, rstd,
                                                 locks, n, GROUP=grp, BLOCK=block,
                                                 num_warps=warps)
                layer_norm_bwd_dwdb[(triton.cdiv(n, 128),)](parts[0], parts[1], dw, db, grp, n,
                                                            BM=32, BN=128)
            yield f"GROUP={grp},w={warps}", fn

    def configs(kernel, rows, n, args):
        block = triton.next_power_of_2(n)
        if block > 65536:
            return
        for warps in (4, 8, 16, 32):
            if block // (32 * warps) <= 128:
                yield f"warps={warps}", lambda w=warps: kernel[(rows,)](*args, BLOCK=block,
                                                                        num_warps=w)

    return {"softmax": softmax, "layer_norm": layer_norm, "rms_norm": rms_norm_kernel,
            "configs": configs, "layer_norm_bwd": layer_norm_bwd_configs}


# ----- the cases --------------------------------------------------------------------------------


def case_softmax(x, tri):
    rows, n = x.shape
    y = torch.empty_like(x)
    want = torch.softmax(x.float(), dim=-1).to(x.dtype)
    stream = torch.cuda.current_stream()
    ours = []
    if n <= 16384:
        for r, block, w, occ in tilelang_row_configs(n):
            k = hinted(softmax_rows, w, occ)
            ours.append((label(f"rows R={r},B={block},w={w}", occ),
                         lambda k=k, r=r, b=block: ct.launch(
                             stream, (ct.cdiv(rows, r),), k, (x, y, r, b)), k))
    for block, w, occ, per_sm in LOOPED_CONFIGS if n >= 16384 else ():
        k = hinted(softmax_looped, w, occ)
        ours.append((looped_label(block, w, occ, per_sm), lambda k=k, b=block, p=per_sm:
                     ct.launch(stream, (looped_grid(rows, p),), k, (x, y, b)), k))
    ours += split_configs(softmax_split, x, 2, (x, y))
    compiled = torch.compile(lambda t: torch.softmax(t, dim=-1))
    # torch and Inductor allocate their results: they are timed as they are, checked by value
    impls = {"tilelang": ours, "torch": [("softmax", lambda: torch.softmax(x, dim=-1))],
             "inductor": [("compile", lambda: compiled(x))]}
    checks = {"torch": lambda: torch.softmax(x, dim=-1), "inductor": lambda: compiled(x)}
    if tri:
        impls["triton"] = list(tri["configs"](tri["softmax"], rows, n, (x, y, n)))
    return impls, y, want, checks, 2 * x.numel() * x.element_size()


def case_layer_norm(x, tri):
    rows, n = x.shape
    w = torch.randn(n, device="cuda", dtype=x.dtype)
    b = torch.randn(n, device="cuda", dtype=x.dtype)
    y = torch.empty_like(x)
    mean = torch.empty(rows, device="cuda")
    rstd = torch.empty(rows, device="cuda")
    want = F.layer_norm(x.float(), (n,), w.float(), b.float(), EPS).to(x.dtype)
    stream = torch.cuda.current_stream()
    ours = []
    for r, block, warps, occ in tilelang_row_configs(n) if n <= 16384 else ():
        k = hinted(layer_norm_fwd, warps, occ)
        ours.append((label(f"R={r},B={block},w={warps}", occ), lambda k=k, r=r, bl=block: ct.launch(
            stream, (ct.cdiv(rows, r),), k, (x, w, b, y, mean, rstd, EPS, r, bl)), k))
    for block, warps, occ, per_sm in looped_configs(n):
        k = hinted(layer_norm_fwd_looped, warps, occ)
        ours.append((looped_label(block, warps, occ, per_sm), lambda k=k, bl=block, p=per_sm:
                     ct.launch(stream, (looped_grid(rows, p),), k,
                               (x, w, b, y, mean, rstd, EPS, bl)), k))
    ours += split_configs(layer_norm_fwd_split, x, 2, (x, w, b, y, mean, rstd, EPS))
    compiled = torch.compile(lambda t: F.layer_norm(t, (n,), w, b, EPS))
    impls = {"tilelang": ours, "torch": [("F.layer_norm", lambda: F.layer_norm(x, (n,), w, b,
                                                                                EPS))],
             "inductor": [("compile", lambda: compiled(x))]}
    checks = {"torch": lambda: F.layer_norm(x, (n,), w, b, EPS), "inductor": lambda: compiled(x)}
    if tri:
        impls["triton"] = list(tri["configs"](tri["layer_norm"], rows, n, (x, w, b, y, n, EPS)))
    return impls, y, want, checks, 2 * x.numel() * x.element_size()


def case_rms_norm(x, tri):
    rows, n = x.shape
    w = torch.randn(n, device="cuda", dtype=x.dtype)
    y = torch.empty_like(x)
    want = F.rms_norm(x.float(), (n,), w.float(), EPS).to(x.dtype)
    stream = torch.cuda.current_stream()
    ours = []
    for r, block, warps, occ in tilelang_row_configs(n) if n <= 16384 else ():
        k = hinted(rms_norm, warps, occ)
        ours.append((label(f"R={r},B={block},w={warps}", occ), lambda k=k, r=r, bl=block: ct.launch(
            stream, (ct.cdiv(rows, r),), k, (x, w, y, EPS, r, bl)), k))
    for block, warps, occ, per_sm in looped_configs(n):
        k = hinted(rms_norm_looped, warps, occ)
        ours.append((looped_label(block, warps, occ, per_sm), lambda k=k, bl=block, p=per_sm:
                     ct.launch(stream, (looped_grid(rows, p),), k, (x, w, y, EPS, bl)), k))
    ours += split_configs(rms_norm_split, x, 1, (x, w, y, EPS))
    compiled = torch.compile(lambda t: F.rms_norm(t, (n,), w, EPS))
    impls = {"tilelang": ours, "torch": [("F.rms_norm", lambda: F.rms_norm(x, (n,), w, EPS))],
             "inductor": [("compile", lambda: compiled(x))]}
    checks = {"torch": lambda: F.rms_norm(x, (n,), w, EPS), "inductor": lambda: compiled(x)}
    if tri:
        impls["triton"] = list(tri["configs"](tri["rms_norm"], rows, n, (x, w, y, n, EPS)))
    return impls, y, want, checks, 2 * x.numel() * x.element_size()


# (BLOCK, warps, blocks per SM) of layer_norm_bwd_split, for rows of 16384 and more
SPLIT_BACKWARD_CONFIGS = ((2048, 4, 3), (1024, 4, 5), (2048, 8, 2), (4096, 8, 1), (1024, 2, 8))


def layer_norm_bwd_plans(rows: int, n: int):
    """tilelang's backward configurations for rows of n: whole rows held (tiles of 1024-8192
    elements, 1 to 8 blocks per SM) up to 4096 columns; from 16384, rows split across blocks
    and two passes (statistics, then a grid over column chunks)."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    block = 1 << (n - 1).bit_length()
    if block <= 4096:
        for elems, warps in ((1024, 4), (2048, 4), (2048, 8), (4096, 8), (4096, 16), (8192, 16),
                             (8192, 32)):
            r = elems // block
            if r >= 1:
                for per_sm in (1, 2, 4, 8):
                    yield Backward("rows", r, block, warps, min(ct.cdiv(rows, r), per_sm * sms))
    for config in SPLIT_BACKWARD_CONFIGS if block >= 16384 else ():
        yield split_backward(rows, n, config, sms)
    for r, bl, warps in ((1, 4096, 8), (2, 4096, 16), (4, 2048, 16), (2, 2048, 8)):
        if block >= 16384:
            chunks = ct.cdiv(n, bl)
            for per_sm in (1, 2):
                yield Backward("two_pass", r, bl, warps, max(1, min(rows // r, per_sm * sms
                                                                    // chunks)))


def case_layer_norm_bwd(x, tri):
    """dx, and dw and db summed from partial sums per block of rows, against autograd."""
    rows, n = x.shape
    w = torch.randn(n, device="cuda", dtype=x.dtype)
    b = torch.randn(n, device="cuda", dtype=x.dtype)
    dy = torch.randn_like(x)
    xr = x.detach().float().requires_grad_()
    wr = w.float().requires_grad_()
    br = b.float().requires_grad_()
    F.layer_norm(xr, (n,), wr, br, EPS).backward(dy.float())
    want = xr.grad.to(x.dtype)
    want_dw, want_db = wr.grad, br.grad
    mean = x.float().mean(1)
    rstd = torch.rsqrt(x.float().var(1, unbiased=False) + EPS)
    dx = torch.empty_like(x)
    dw, db = torch.empty_like(w), torch.empty_like(b)
    stream = torch.cuda.current_stream()
    ours = []
    for plan in layer_norm_bwd_plans(rows, n):
        scratch = {k: torch.empty(s, device="cuda") for k, s in plan.scratch(rows, n).items()}
        if plan.kind == "split":
            scratch["exchange"] = Workspace.for_rows(rows, n, plan.a, 2)
        ours.append((plan.label(), lambda p=plan, s=scratch: backward(
            stream, dy, x, w, mean, rstd, dx, dw, db, p, s), plan.kernel()))
    xg = x.detach().requires_grad_()
    wg = w.detach().requires_grad_()
    bg = b.detach().requires_grad_()
    out = F.layer_norm(xg, (n,), wg, bg, EPS)

    def torch_bwd():
        return torch.autograd.grad(out, (xg, wg, bg), dy, retain_graph=True)[0]

    impls = {"tilelang": ours, "torch": [("autograd", torch_bwd)]}
    checks = {"torch": torch_bwd}
    if tri:
        impls["triton"] = list(tri["layer_norm_bwd"](rows, n, dy, x, w, mean, rstd, dx, dw, db))

    def verify(name):
        """dw and db of tilelang and Triton (torch's are checked by value above), relative to
        their largest element (sums over 2^28 / n rows)."""
        if name in ("tilelang", "triton"):
            for got, ref in ((dw, want_dw), (db, want_db)):
                scale = float(ref.abs().max())
                torch.testing.assert_close(got.float(), ref, rtol=2e-2, atol=2e-2 * scale)

    # bytes that must move: x, dy, w, mean, rstd read; dx, dw, db written
    size = x.element_size()
    return (impls, dx, want, checks, 3 * x.numel() * size + 3 * n * size + 8 * rows, verify)


CASES = {"softmax": case_softmax, "layer_norm": case_layer_norm, "rms_norm": case_rms_norm,
         "layer_norm_bwd": case_layer_norm_bwd}


def measure(impls, out, want, checks, bytes_moved, verify=None) -> list[dict]:
    rows = []
    tol = dict(rtol=2e-2, atol=2e-2) if want.dtype == torch.bfloat16 else dict(rtol=1e-4,
                                                                                 atol=1e-4)
    for name, configs in impls.items():
        best = None
        for label, fn, *kernel in configs:
            out.fill_(float("nan"))
            fn()
            torch.cuda.synchronize()
            got = checks[name]() if name in checks else out
            torch.testing.assert_close(got, want, **tol, msg=lambda m, n=name, lb=label:
                                       f"{n} {lb}: {m}")
            if verify is not None:
                verify(name)
            ms, spread = device_ms(fn, warmup=5, repeats=20)
            if VERBOSE:
                print(f"  {name} {label}: {ms:.3f} ms", flush=True)
            if best is None or ms < best["ms"]:
                best = {"impl": name, "config": label, "ms": ms, "spread_ms": spread,
                        **(driver_resources(kernel[0]) if kernel else {})}
        if best is not None:
            best["GB/s"] = bytes_moved / best["ms"] / 1e6
            rows.append(best)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(CASES))
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)))
    parser.add_argument("--dtypes", default="fp32,bf16")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    global VERBOSE
    VERBOSE = args.verbose
    try:
        tri = triton_kernels()
    except ImportError:
        tri = None
    peak = copy_bandwidth(TOTAL)
    print(f"device-to-device copy: {peak:.0f} GB/s (read + write)")
    results = []
    for case in args.only.split(","):
        for dname in args.dtypes.split(","):
            for n in map(int, args.widths.split(",")):
                torch.manual_seed(n)
                x = torch.randn(TOTAL // n, n, device="cuda", dtype=DTYPES[dname])
                rows = measure(*CASES[case](x, tri))
                ours = next((r["ms"] for r in rows if r["impl"] == "tilelang"), None)
                best_peer = min((r["ms"] for r in rows if r["impl"] in ("inductor", "triton")),
                                default=None)
                for r in rows:
                    r.update(kernel=case, dtype=dname, n=n, of_copy=r["GB/s"] / peak,
                             vs_ours=r["ms"] / ours if ours else None)
                if ours and best_peer:
                    print(f"{case} {dname} n={n}: tilelang {ours:.3f} ms, best of "
                          f"Inductor/Triton {best_peer:.3f} ms", flush=True)
                results += rows
                del x
                torch.cuda.empty_cache()
    cols = ["kernel", "dtype", "n", "impl", "config", "ms", "GB/s", "of_copy", "vs_ours", "regs",
            "local_B", "smem_B", "blocks/SM"]
    print(table(results, cols))
    save("reductions", {"device": torch.cuda.get_device_name(), "elements": TOTAL,
                        "copy_GBps": peak, "rows": results})
    bar_plot("reductions", [f"{r['kernel']}/{r['dtype']}/{r['n']}/{r['impl']}" for r in results],
             [r["of_copy"] for r in results], "fraction of copy bandwidth",
             "Row reductions, 2^28 elements per input")


if __name__ == "__main__":
    main()
