"""Benchmarks: where the launch path's time goes, layer by layer (µs per call, on the GPU)."""

from __future__ import annotations

import torch
from bench_launch import N, add_one, bare_launcher
from common import wall_us_per_call

import tilelang as ct


def per_call(fn, number: int = 20000) -> float:
    """Median µs per call over interleaved, queue-drained loops (see common.wall_us_per_call)."""
    median, _, _ = wall_us_per_call(fn, number, 5, torch.cuda.synchronize)
    return median


def warm_launch():
    """Tensors, stream and arguments of bench_launch's tiny kernel, launched once (cached)."""
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream()
    args = (x, y, 128)
    ct.launch(stream, (1,), add_one, args)
    return stream, args


def main() -> None:
    from tilelang.runtime import launch as launch_module
    from tilelang.runtime.native_launch import native_module

    stream, args = warm_launch()
    native = native_module()
    entry = add_one.native_entry
    miss = (*entry[:2], b"A\x00" + entry[2][2:], *entry[3:])  # fails after the exchange
    h = stream.cuda_stream
    bare, _, _ = bare_launcher(*args[:2])
    rows = {
        "bare cuLaunchKernel": bare,
        "ct.launch (C entry)": lambda: ct.launch(stream, (1,), add_one, args),
        "Python launch()": lambda: launch_module.launch(stream, (1,), add_one, args),
        "native.fast direct": lambda: native.fast(entry, stream, (1,), args),
        "native.fast, int stream": lambda: native.fast(entry, h, (1,), args),
        "exchange + checks only": lambda: native.fast(miss, stream, (1,), args),
        "empty lambda": lambda: None,
    }
    results: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(3):  # interleaved rounds: no row benefits from running first or last
        for name, fn in rows.items():
            results[name].append(per_call(fn, 10000))
    for name, values in results.items():
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name:28s} {min(values):7.3f} us  (rounds: {rounds})")


def profile() -> None:
    """cProfile of ct.launch in a loop, to see which frames the time goes to."""
    import cProfile
    import pstats

    from tilelang.runtime import launch as launch_module

    stream, args = warm_launch()
    print("use_interpreter", per_call(lambda: launch_module.use_interpreter(add_one)))
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20000):
        ct.launch(stream, (1,), add_one, args)
    profiler.disable()
    torch.cuda.synchronize()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__" and __import__("sys").argv[1:] == ["--profile"]:
    profile()


if __name__ == "__main__" and not __import__("sys").argv[1:]:
    main()
