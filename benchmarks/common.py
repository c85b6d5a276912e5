"""Benchmarks: shared timing, kernel resource, table, JSON and plot helpers (run on the GPU
machine)."""

from __future__ import annotations

import json
import math
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(os.environ.get("OUT") or Path(__file__).parent / "results")


def copy_bandwidth(elements: int = 1 << 28) -> float:
    """Device-to-device copy of `elements` floats: bytes read + written per second (GB/s), the
    roofline every memory-bound benchmark here is a fraction of."""
    import torch

    src = torch.randn(elements, device="cuda")
    dst = torch.empty_like(src)
    ms, _ = device_ms(lambda: dst.copy_(src))
    return 2 * src.numel() * src.element_size() / ms / 1e6


def wall_us_per_call(fn: Callable[[], Any], calls: int, repeats: int, sync: Callable[[], Any]):
    """Median over `repeats` of the wall time per call of `calls` back-to-back calls (µs)."""
    for _ in range(max(calls // 10, 10)):
        fn()
    sync()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples), min(samples), max(samples)


def device_ms(fn: Callable[[], Any], warmup: int = 10, repeats: int = 50) -> tuple[float, float]:
    """Median and spread (max - min) of device time per call (ms), with CUDA events."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), max(times) - min(times)


def timed(run: Callable[[int], None], sets: int, budget_ms: float) -> tuple[float, float]:
    """Median and spread of device ms per call. A CUDA graph of enough back-to-back calls to
    fill about a millisecond, rotating over the input sets, is replayed (falling back to plain
    launches between events if capture fails)."""
    import torch

    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(4):
        run(i % sets)
    end.record()
    end.synchronize()
    estimate = start.elapsed_time(end) / 4
    calls = max(sets, min(64, math.ceil(1.0 / max(estimate, 1e-3))))

    def region() -> None:
        for i in range(calls):
            run(i % sets)

    replay = region
    try:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            region()
        replay = graph.replay
    except Exception as e:  # any capture failure: time plain launches
        torch.cuda.synchronize()
        print(f"  (graph capture failed, timing plain launches: {type(e).__name__}: {e})")
    repeats = max(5, min(50, int(budget_ms / (estimate * calls))))
    ms, spread = device_ms(replay, warmup=2, repeats=repeats)
    return ms / calls, spread / calls


def driver_resources(kernel) -> dict:
    """Registers per thread, local memory per thread (stack and spills) and shared memory of the
    kernel's loaded specialization, as the driver reports them, and the blocks per SM they let
    reside on the device (tilelang's theoretical occupancy, backend/occupancy.py)."""
    from tilelang.runtime.resources import of_launcher
    from tilelang.runtime.state import state_of

    launchers = list(state_of(kernel).launchers.values())
    if not launchers:
        return {}
    found = of_launcher(launchers[-1])
    return {"regs": found.registers, "local_B": found.local_bytes, "smem_B": found.shared_bytes,
            **({"blocks/SM": found.blocks_per_sm} if found.occupancy is not None else {})}


def table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns)]
    lines.append("  ".join("-" * widths[c] for c in columns))
    lines += ["  ".join(_fmt(r.get(c)).ljust(widths[c]) for c in columns) for r in rows]
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.1f}"
    return "" if v is None else str(v)


def save(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2))
    return path


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend, or None (said once) when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return None
    return plt


def bar_plot(name: str, labels: list[str], values: list[float], ylabel: str, title: str) -> None:
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(max(6, len(labels) * 0.9), 4))
    ax.bar(labels, values, color="#4a7ab5")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    RESULTS.mkdir(parents=True, exist_ok=True)
    fig.savefig(RESULTS / f"{name}.png", dpi=120)
