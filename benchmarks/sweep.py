"""Benchmarks: what the ones that sweep tilelang tile configurations against peers share
(bench_matmul.py, bench_attention.py): the --arch target, checking and measuring one
implementation, the table cells, picking each arch's best configuration, the dry run's
compile rows and the command line."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from common import driver_resources

PEAK_TFLOPS = 989.0  # H100 SXM, dense fp16/bf16 with float32 accumulation (datasheet)
NATIVE = "native"  # --arch value: the device's own architecture (no TILELANG_ARCH)
DRY_RUN_NATIVE = "sm_90"  # what the dry run compiles for NATIVE: the H100's own
BUDGET_MS = 200.0  # device time per timing (fewer repeats for large shapes)
RESOURCES = ("regs", "local_B", "smem_B", "blocks/SM")  # of the best configuration
# the dry run's table, after each benchmark's own key columns
DRY_RUN_COLUMNS = ["regs", "spill_st_B", "spill_ld_B", "stack_B", "smem_B", "blocks/SM",
                   "limited_by", "compile_s", "interp", "ptx", "error"]


@contextlib.contextmanager
def target(arch: str) -> Iterator[None]:
    """TILELANG_ARCH for launches (tilelang's only per-launch override): NATIVE leaves it as
    the caller had it. Each arch has its own kernel objects, so cached launches stay on theirs."""
    old = os.environ.get("TILELANG_ARCH")
    if arch != NATIVE:
        os.environ["TILELANG_ARCH"] = arch
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TILELANG_ARCH", None)
        else:
            os.environ["TILELANG_ARCH"] = old


# ----- checking and measuring one implementation -------------------------------------------------


def mismatch(got, want, tol: dict) -> str | None:
    """None if torch tensor `got` matches `want` (|got - want| <= atol + rtol |want| elementwise
    and a relative norm error under tol["norm"]), else what is off."""
    import torch

    if not torch.isfinite(got).all():
        return f"{int((~torch.isfinite(got)).sum())} non-finite elements (unwritten?)"
    rel = float((got - want).norm() / want.norm())
    close = torch.isclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
    if rel > tol["norm"] or not close.all():
        worst = int((got - want).abs().argmax())
        at = tuple(int(i) for i in np.unravel_index(worst, tuple(got.shape)))
        return (f"relative error {rel:.2e}, {int((~close).sum())} elements off, worst at "
                f"{at}: {float(got.flatten()[worst]):.4g} vs "
                f"{float(want.flatten()[worst]):.4g}")
    return None


def measure(name: str, check: Callable[[], str | None],
            timing: Callable[[], tuple[float, float]], flops: float) -> dict:
    """{"TFLOP/s": ...} or {"status": "wrong" | "error", "why": ...}: `check()` says what is off
    (None when right), `timing()` gives the median and spread of ms per call."""
    try:
        wrong = check()
        if wrong:
            print(f"  {name}: wrong: {wrong}", flush=True)
            return {"status": "wrong", "why": wrong}
        ms, spread = timing()
    except Exception as e:  # a failing implementation is a row
        print(f"  {name}: error: {type(e).__name__}: {str(e)[:300]}", flush=True)
        return {"status": "error", "why": f"{type(e).__name__}: {e}"}
    return {"ms": ms, "spread_ms": spread, "TFLOP/s": flops / ms / 1e9}


# ----- table cells and the configuration sweep ---------------------------------------------------


def shown(result: dict | None):
    if result is None:
        return None
    return result.get("TFLOP/s", result.get("status"))


def ratio(x: dict | None, y: dict | None) -> float | None:
    if x and y and "TFLOP/s" in x and "TFLOP/s" in y:
        return x["TFLOP/s"] / y["TFLOP/s"]
    return None


def brief(v) -> str:
    return f"{v:.0f}" if isinstance(v, float) else str(v)


def ours_column(arch: str) -> str:
    return "ours" if arch == NATIVE else f"ours_{arch}"


def ours_columns(args) -> list[str]:
    """The table's tilelang columns: per arch its best and that configuration, and the driver's
    figures for the first arch."""
    cols = []
    for arch in args.arch if "ours" in args.impls else ():
        cols += [ours_column(arch), f"{ours_column(arch)}_cfg"]
        if arch == args.arch[0]:
            cols += list(RESOURCES)
    return cols


def kernel_for(kernels: dict, key: tuple, kernel, warps: int, occupancy: int | None = None):
    """`kernel` with `warps` warps (and an occupancy hint), one Kernel object per key (its own
    cache and fast path). Not `replace_hints`, which gives one object per options: the
    configurations timed under TILELANG_ARCH=sm_80 would launch the native specialization
    the object's fast path registered first (it keys launches by arguments only)."""
    if key not in kernels:
        from tilelang.interface.kernel import Kernel

        options = dataclasses.replace(kernel.options, num_warps=warps,
                                      occupancy=occupancy or kernel.options.occupancy)
        kernels[key] = Kernel(kernel.fn, options)
    return kernels[key]


def measure_configs(args, configs: Iterable, row: dict, key_fields: dict,
          measure_config: Callable[[str, Any], tuple[dict, Any]]) -> list[dict]:
    """Every configuration under every --arch (TILELANG_ARCH set around each measurement):
    `measure_config(arch, config)` gives its result and the kernel it launched, whose driver
    figures join the result. Each arch's best (the fastest timed one, else the first) goes into
    `row`; returned: per arch, `key_fields` and every configuration's cell."""
    config_rows = []
    for arch in args.arch:
        results, cfg_row = [], {**key_fields, "arch": arch}
        for config in configs:
            with target(arch):
                result, kern = measure_config(arch, config)
            result.update(config=config.label, **driver_resources(kern))
            cfg_row[config.label] = shown(result)
            results.append(result)
        config_rows.append(cfg_row)
        timed_ok = [r for r in results if "TFLOP/s" in r]
        best = (max(timed_ok, key=lambda r: r["TFLOP/s"]) if timed_ok
                else results[0] if results else None)
        col = ours_column(arch)
        row[col], row[f"{col}_result"] = shown(best), best
        if best is not None:
            row[f"{col}_cfg"] = best.get("config")
            if arch == args.arch[0]:
                row.update({f: best.get(f) for f in RESOURCES})
    return config_rows


def rematch(entries: dict[str, tuple[dict | None, Callable[[], tuple[float, float]]]],
            rounds: int, work: float) -> None:
    """Time the best configuration and the peers again, in turn, `rounds` times, and give each
    result the median of its rounds (the sweep's figure stays as `sweep_TFLOP/s`). The sweep
    times them minutes apart, and a long shape's clocks drift over that (8192^3 GEMM: cuBLAS
    682-780 TFLOP/s the same hour); timings taken in alternation see the same clocks.
    `entries`: name -> (its result, a timing giving (median ms, spread ms)); results that were
    not timed are left out."""
    timings = {name: timing for name, (result, timing) in entries.items()
               if result is not None and "TFLOP/s" in result}
    rounds_ms: dict[str, list[float]] = {name: [] for name in timings}
    for _ in range(rounds):
        for name, timing in timings.items():
            rounds_ms[name].append(timing()[0])
    for name, ms_list in rounds_ms.items():
        result, ms = entries[name][0], float(np.median(ms_list))
        result.update({"sweep_TFLOP/s": result["TFLOP/s"], "ms": ms,
                       "TFLOP/s": work / ms / 1e9, "rounds_ms": ms_list})


def final_rounds(args, row: dict, final: dict, timings: dict, work: float) -> dict | None:
    """The end of a shape: the first arch's best configuration (its timing from `timings`,
    keyed by (arch, label)) joins the peers in `final` (name -> (result, timing)), all are
    timed again in turn when args.rounds > 1, and `row` gets their cells. Returns the best
    configuration's result."""
    column = ours_column(args.arch[0])
    ours = row.get(f"{column}_result")
    if ours is not None and (args.arch[0], ours.get("config")) in timings:
        final[column] = ours, timings[args.arch[0], ours["config"]]
    if args.rounds > 1:
        rematch(final, args.rounds, work)
    for name, (result, _) in final.items():
        row[name] = shown(result)
    return ours


def print_compile_time(kernels: dict, started: float) -> None:
    from tilelang.runtime.state import state_of

    compile_s = sum(t for kern in kernels.values() for _, t in state_of(kern).timings)
    print(f"\ntilelang compile/load time: {compile_s:.1f} s over {len(kernels)} kernels; "
          f"total {time.perf_counter() - started:.0f} s")


# ----- dry run: no GPU ----------------------------------------------------------------------------


def ptx_summary(ptx: str) -> str:
    """What the matrix path is made of: tensor-core and copy instructions in the PTX."""
    counts = {name: len(re.findall(rf"^\s*{op}", ptx, re.M)) for name, op in (
        ("mma", r"mma\.sync"), ("wgmma", r"wgmma\.mma_async"), ("ldmatrix", "ldmatrix"),
        ("cp.async", r"cp\.async\.c"), ("tma", r"cp\.async\.bulk\.tensor"),
        ("ld.shared", r"ld\.shared"), ("st.shared", r"st\.shared"), ("bar", r"bar\.sync"))}
    return " ".join(f"{k}={v}" for k, v in counts.items() if v)


def interpreted(got: np.ndarray, want: np.ndarray, tol: dict) -> str:
    """The dry run's verdict on an interpreter run: "ok" or how far off."""
    got = got.astype(np.float64)
    ok = np.isfinite(got).all() and np.allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
    return "ok" if ok else f"WRONG (max error {np.nanmax(np.abs(got - want)):.3g})"


def dry_run_row(name: str, row: dict, compile: Callable[[], Any],
                interpret: Callable[[], str] | None) -> dict:
    """`row` with ptxas's figures and the PTX's instruction mix of `compile()` (or its error),
    the compile time and, with `interpret`, its verdict on the interpreter; one line printed."""
    start = time.perf_counter()
    try:
        compiled = compile()
        r = compiled.resources()
        row.update(regs=r.registers, spill_st_B=r.spill_stores, spill_ld_B=r.spill_loads,
                   stack_B=r.stack_bytes, smem_B=r.shared_bytes, limited_by=r.limited_by,
                   ptx=ptx_summary(compiled.ptx or ""))
        row["blocks/SM"] = r.blocks_per_sm
    except Exception as e:  # report every config
        row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    row["compile_s"] = time.perf_counter() - start
    if interpret is not None and "error" not in row:
        try:
            row["interp"] = interpret()
        except Exception as e:
            row["interp"] = f"error: {type(e).__name__}: {e}"
    print(f"  {name}: {row.get('regs')} regs, "
          f"{row.get('spill_st_B')}/{row.get('spill_ld_B')} B spill st/ld, "
          f"{row.get('blocks/SM')} blocks/SM, "
          f"{row['compile_s']:.2f} s {row.get('error', '')}", flush=True)
    return row


# ----- command line -------------------------------------------------------------------------------


def parse_list(choices: tuple[str, ...]) -> Callable[[str], tuple[str, ...]]:
    def parse(text: str) -> tuple[str, ...]:
        items = tuple(s.strip() for s in text.split(",") if s.strip())
        bad = [s for s in items if s not in choices]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"{text!r}: choose from {', '.join(choices)}")
        return items
    return parse


def parse_arch(text: str) -> tuple[str, ...]:
    items = tuple(s.strip() for s in text.split(",") if s.strip())
    for s in items:
        if s != NATIVE and not re.fullmatch(r"sm_\d+a?", s):
            raise argparse.ArgumentTypeError(f"bad arch {s!r}: '{NATIVE}' or like sm_80")
    return items or (NATIVE,)


def parse_tiles(text: str, dims: int, form: str, example: str) -> list[tuple[int, ...]]:
    """Comma-separated tiles of `dims` sizes joined by x, then wW (warps, default 4), as
    tuples (sizes..., warps); `form` and `example` name the format in errors."""
    pattern = "x".join([r"(\d+)"] * dims) + r"(?:w(\d+))?"
    tiles = []
    for part in text.split(","):
        found = re.fullmatch(pattern, part.strip())
        if not found:
            raise argparse.ArgumentTypeError(f"bad config {part!r}: {form}, e.g. {example}")
        *sizes, warps = found.groups()
        tiles.append((*map(int, sizes), int(warps or 4)))
    return tiles


def add_arguments(parser: argparse.ArgumentParser, impls: tuple[str, ...],
                        quick: str) -> None:
    """--arch, --impls (from `impls`, all by default), --quick (`quick` says what it runs),
    --budget-ms, --rounds and --dry-run."""
    parser.add_argument("--arch", type=parse_arch, default=(NATIVE,),
                        help="tilelang targets, comma-separated: 'native' (the device's) or e.g. "
                             "sm_80 (through TILELANG_ARCH); ratios use the first")
    parser.add_argument("--impls", type=parse_list(impls), default=impls)
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {quick}")
    parser.add_argument("--budget-ms", type=float, default=BUDGET_MS,
                        help="device time per timing (repeats: 5 to 50)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="after the sweep, time the best configuration and the peers in "
                             "turn this many times and report each one's median (1: the "
                             "sweep's figures)")
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU: compile every config (ptxas resources) and run each on the "
                             "interpreter")
