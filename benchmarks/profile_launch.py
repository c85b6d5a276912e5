"""Benchmarks: where the launch path's time goes, layer by layer (µs per call, on the GPU)."""

from __future__ import annotations

import torch
from bench_launch import N, add_one
from common import wall_us_per_call

import tilelang as ct


def per_call(fn, number: int = 20000) -> float:
    """Median µs per call over interleaved, queue-drained loops (see common.wall_us_per_call)."""
    median, _, _ = wall_us_per_call(fn, number, 5, torch.cuda.synchronize)
    return median


def main() -> None:
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream()
    args = (x, y, 128)
    ct.launch(stream, (1,), add_one, args)
    fast = add_one.fast_launch
    launcher = next(v for v in add_one.cache["fast_table"].values())
    h = stream.cuda_stream
    values = (x.data_ptr(), N, 1, y.data_ptr(), N, 1)
    rows = {
        "ct.launch": lambda: ct.launch(stream, (1,), add_one, args),
        "fast_launch (generated)": lambda: fast(stream, (1,), args),
        "launcher.call (native)": lambda: launcher.call(h, 1, 1, 1, *values),
        "stream.cuda_stream": lambda: stream.cuda_stream,
        "2x tensor facts": lambda: (x.is_cuda, x.data_ptr(), x.shape, x.stride(), x.dtype,
                                    y.is_cuda, y.data_ptr(), y.shape, y.stride(), y.dtype),
        "empty lambda": lambda: None,
    }
    results: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(3):  # interleaved rounds: no row benefits from running first or last
        for name, fn in rows.items():
            results[name].append(per_call(fn, 10000))
    for name, values in results.items():
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name:28s} {min(values):7.3f} us  (rounds: {rounds})")


if __name__ == "__main__" and not __import__("sys").argv[1:]:
    main()


def profile() -> None:
    """cProfile of ct.launch in a loop, to see which frames the time goes to."""
    import cProfile
    import pstats

    from tilelang.runtime import launch as launch_module

    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream()
    args = (x, y, 128)
    ct.launch(stream, (1,), add_one, args)
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
