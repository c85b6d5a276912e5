"""Runtime on the GPU: argument kinds, streams, caches, errors (all against torch results)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")


@ct.kernel
def scale_add(x, y, out, alpha, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, (i,), (BLOCK,))
    b = ct.load(y, (i,), (BLOCK,))
    ct.store(out, (i,), (a * alpha + b).astype(out.dtype))


@ct.kernel
def add_no_cast(x, y, out):
    ct.store(out, (0,), ct.load(x, (0,), (128,)) + ct.load(y, (0,), (128,)))


def fresh(n: int = 1000, dtype=torch.float32):
    x, y = torch.randn(n, device="cuda", dtype=dtype), torch.randn(n, device="cuda", dtype=dtype)
    return x, y, torch.full_like(x, float("nan"))


def run(stream, x, y, out, alpha=1.5, block=128):
    ct.launch(stream, (ct.cdiv(x.shape[0], block),), scale_add, (x, y, out, alpha, block))


def check(x, y, out, alpha=1.5):
    torch.cuda.synchronize()
    assert not out.isnan().any(), "some outputs were never written"
    torch.testing.assert_close(out, x * alpha + y)


def test_torch_current_and_side_streams():
    x, y, out = fresh()
    run(torch.cuda.current_stream(), x, y, out)
    check(x, y, out)
    side = torch.cuda.Stream()
    x, y, out = fresh(4097)
    side.wait_stream(torch.cuda.current_stream())  # the inputs and the NaN fill come first
    with torch.cuda.stream(side):
        run(side, x, y, out)
    side.synchronize()
    check(x, y, out)


def test_stream_none_uses_the_current_torch_stream():
    side = torch.cuda.Stream()
    x, y, out = fresh(777)
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        run(None, x, y, out)
    side.synchronize()
    check(x, y, out)


def test_cuda_core_stream_and_raw_handles():
    from tilelang.cuda_compat import Device

    device = Device()
    device.set_current()  # cuda.core: a stream needs the device's context current (when this
    stream = device.create_stream()  # test runs first in its process, nothing else made it so)
    x, y, out = fresh(300)
    torch.cuda.synchronize()
    run(stream, x, y, out)
    stream.sync()
    check(x, y, out)

    class Protocol:  # anything with __cuda_stream__
        def __cuda_stream__(self):
            return (0, torch.cuda.current_stream().cuda_stream)

    for s in (Protocol(), torch.cuda.current_stream().cuda_stream):
        x, y, out = fresh(301)
        run(s, x, y, out)
        check(x, y, out)


def test_cupy_arrays_and_stream():
    cp = pytest.importorskip("cupy")
    x, y = cp.random.randn(5000, dtype=cp.float32), cp.random.randn(5000, dtype=cp.float32)
    out = cp.full_like(x, cp.nan)
    stream = cp.cuda.Stream()
    with stream:
        ct.launch(stream, (ct.cdiv(5000, 256),), scale_add, (x, y, out, 0.5, 256))
    stream.synchronize()
    assert cp.allclose(out, x * 0.5 + y)


def test_dlpack_only_producer():
    class OnlyDLPack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    x, y, out = fresh(513)
    ct.launch(None, (ct.cdiv(513, 128),), scale_add,
              (OnlyDLPack(x), OnlyDLPack(y), OnlyDLPack(out), 2.0, 128))
    check(x, y, out, alpha=2.0)


def test_non_contiguous_and_many_specializations():
    base = torch.randn(3000, device="cuda")
    x, y = base[::3], base[1::3]
    out = torch.full((1000,), float("nan"), device="cuda")
    run(torch.cuda.current_stream(), x, y, out)
    check(x, y, out)
    for dtype in (torch.float16, torch.bfloat16):  # new specializations of the same kernel
        x, y, out = fresh(999, dtype)
        run(torch.cuda.current_stream(), x, y, out, alpha=0.25)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x * 0.25 + y, rtol=1e-2, atol=1e-2)


def test_cpu_tensor_is_a_clear_error():
    x, y, out = fresh()
    with pytest.raises(ct.TileArgumentError, match="`x` is in cpu memory") as info:
        run(None, x.cpu(), y, out)
    assert "tensor.cuda()" in str(info.value)
    run(None, x, y, out)  # the process is healthy, and the cached path still checks devices
    check(x, y, out)
    with pytest.raises(ct.TileArgumentError, match="cpu memory"):
        run(None, x, y.cpu(), out)


def test_argument_count_and_dtype_errors():
    x, y, out = fresh()
    with pytest.raises(ct.TileArgumentError, match="Kernel expects 5 arguments but 4 were given"):
        ct.launch(None, (1,), scale_add, (x, y, out, 1.0))
    with pytest.raises(ct.TileArgumentError, match="complex64"):
        ct.launch(None, (1,), scale_add, (x.to(torch.complex64), y, out, 1.0, 128))
    with pytest.raises(ct.TileTypeError) as info:  # f32 result into an int32 output
        ct.launch(None, (1,), add_no_cast, (x, y, out.to(torch.int32)))
    assert "ct.store(out, (0,), ct.load(x, (0,), (128,)) + ct.load(y" in str(info.value)
    assert "astype" in str(info.value)


def test_launch_errors_are_exceptions():
    x, y, out = fresh()
    with pytest.raises(ct.TileArgumentError, match="grid"):
        ct.launch(None, (0,), scale_add, (x, y, out, 1.0, 128))
    run(None, x, y, out)
    check(x, y, out)


def test_disk_cache_survives_the_process(tmp_path: Path):
    """A second process loads the kernel from disk: no compilation, same results."""
    script = tmp_path / "use_cache.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time, torch
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_runtime import scale_add, fresh, run, check
        from tilelang.runtime.state import state_of
        x, y, out = fresh(1000)
        start = time.perf_counter()
        run(None, x, y, out)
        check(x, y, out)
        print(state_of(scale_add).timings[0][0], time.perf_counter() - start)
    """))
    env = {**os.environ, "TILELANG_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    second = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                            text=True)
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert first.stdout.split()[0] == "compiled"
    assert second.stdout.split()[0] == "disk"


@pytest.mark.parametrize("grid", [(1, 2, 3, 4), (True,), (-1,), (1.5,), (0, 1)])
def test_bad_grids_of_a_cached_kernel_are_rejected(grid):
    x, y, out = fresh()
    run(None, x, y, out)  # cached: the fast paths are in place
    with pytest.raises(ct.TileArgumentError, match="grid"):
        ct.launch(None, grid, scale_add, (x, y, out, 1.5, 128))
    check(x, y, out)


def test_cupy_launch_keeps_the_torch_fast_path():
    cp = pytest.importorskip("cupy")
    x, y, out = fresh()
    run(None, x, y, out)
    entry = scale_add.native_entry
    a = cp.ones(1000, dtype=cp.float32)
    ct.launch(None, (8,), scale_add, (a, a, cp.empty_like(a), 1.5, 128))
    assert scale_add.native_entry is entry


@ct.kernel
def scale_add_wide(x, y, out, alpha, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, (i,), ct.load(x, (i,), (BLOCK,)) * alpha + ct.load(y, (i,), (BLOCK,)))


def test_launch_from_a_new_thread():
    """A new thread has no current CUDA context: cached and first launches still run."""
    import threading

    cases = [fresh(1000 + 77 * i) for i in range(4)]
    run(None, *fresh())  # scale_add is cached in this thread; scale_add_wide is not
    failures = []

    def work():
        try:
            for x, y, out in cases[:2]:
                ct.launch(0, (ct.cdiv(x.shape[0], 128),), scale_add, (x, y, out, 1.5, 128))
            for x, y, out in cases[2:]:
                ct.launch(0, (ct.cdiv(x.shape[0], 256),), scale_add_wide, (x, y, out, 1.5, 256))
        except Exception as e:  # reported by the main thread
            failures.append(e)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    assert not failures, failures
    for x, y, out in cases:
        check(x, y, out)
