"""Runtime on two GPUs: a launch runs on the device of its arrays, whichever device is current.

Deselected on machines with fewer than two GPUs (tests/gpu/conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tilelang as ct
from tilelang.runtime.state import state_of

torch = pytest.importorskip("torch")
from test_runtime import scale_add  # noqa: E402  (this folder is on sys.path under pytest)

pytestmark = pytest.mark.multi_gpu


def fresh(device: int, n: int = 1000):
    x = torch.randn(n, device=f"cuda:{device}")
    y = torch.randn(n, device=f"cuda:{device}")
    return x, y, torch.full_like(x, float("nan"))


def run(stream, x, y, out):
    ct.launch(stream, (ct.cdiv(x.shape[0], 128),), scale_add, (x, y, out, 1.5, 128))


def check(x, y, out):
    torch.cuda.synchronize(x.device)
    assert not out.isnan().any(), "some outputs were never written"
    torch.testing.assert_close(out, x * 1.5 + y)


def devices_of(kernel) -> set[int]:
    return state_of(kernel).devices()


@pytest.mark.parametrize("n", [1000, 4097])
def test_arrays_on_the_second_device_while_the_first_is_current(n):
    assert torch.cuda.current_device() == 0
    for _ in range(3):  # the slow path, then the fast paths
        x, y, out = fresh(1, n)
        run(torch.cuda.current_stream(1), x, y, out)  # device 1's default stream: handle 0
        check(x, y, out)
    assert torch.cuda.current_device() == 0, "the launch left another device current"
    assert 1 in devices_of(scale_add)


def test_stream_none_runs_on_the_arrays_device():
    for _ in range(2):
        x, y, out = fresh(1, 2049)
        run(None, x, y, out)
        check(x, y, out)


def test_side_stream_of_the_second_device():
    side = torch.cuda.Stream(device=1)
    for _ in range(2):
        x, y, out = fresh(1, 3001)
        side.wait_stream(torch.cuda.current_stream(1))
        run(side, x, y, out)
        side.synchronize()
        check(x, y, out)


def test_inside_a_device_guard():
    with torch.cuda.device(1):
        x, y, out = fresh(1, 555)
        run(torch.cuda.current_stream(), x, y, out)
        check(x, y, out)


def test_alternating_devices():
    for i in range(6):
        x, y, out = fresh(i % 2, 1000 + i)
        run(None, x, y, out)
        check(x, y, out)
    assert devices_of(scale_add) >= {0, 1}


def test_cupy_arrays_on_the_second_device():
    cp = pytest.importorskip("cupy")
    with cp.cuda.Device(1):
        x = cp.random.standard_normal(1500, dtype=cp.float32)
        y = cp.random.standard_normal(1500, dtype=cp.float32)
        out = cp.full_like(x, cp.nan)
    for _ in range(2):
        ct.launch(None, (ct.cdiv(1500, 128),), scale_add, (x, y, out, 1.5, 128))
        with cp.cuda.Device(1):
            cp.cuda.Device(1).synchronize()
            assert not cp.isnan(out).any()
            assert cp.allclose(out, x * 1.5 + y, rtol=1e-5, atol=1e-6)


def test_arrays_on_two_devices_are_rejected():
    x, _, out = fresh(0)
    y = torch.randn(1000, device="cuda:1")
    with pytest.raises(ct.TileArgumentError, match=r"different devices: `x` on cuda:0, `y` on "
                                                   r"cuda:1"):
        run(None, x, y, out)
    x, y, out = fresh(1)
    run(None, x, y, out)  # the process is healthy
    check(x, y, out)


def test_a_stream_of_another_device_is_rejected():
    other = torch.cuda.Stream(device=0)
    for _ in range(2):  # uncached, then cached (the fast paths hand it to the checks)
        x, y, out = fresh(1)
        with pytest.raises(ct.TileArgumentError, match="stream is on cuda:0 but the kernel's "
                                                       "arrays are on cuda:1"):
            run(other, x, y, out)
        run(None, x, y, out)
        check(x, y, out)


def test_the_default_stream_of_another_device_launches_on_the_arrays_device():
    """cuTile's AllGatherMatmul sample passes torch.cuda.current_stream() on every rank without
    setting the device: on rank 1 that is device 0's default stream."""
    default0 = torch.cuda.default_stream(0)
    assert default0.cuda_stream == 0
    for _ in range(2):  # uncached, then cached
        x, y, out = fresh(1)
        run(default0, x, y, out)
        torch.cuda.synchronize(1)
        check(x, y, out)


def test_a_raw_stream_handle_of_another_device_is_rejected():
    other = torch.cuda.Stream(device=0)
    x, y, out = fresh(1)
    with pytest.raises(ct.TileLaunchError, match="does not belong to cuda:1"):
        run(other.cuda_stream, x, y, out)
    run(None, x, y, out)
    check(x, y, out)


def test_the_pure_python_path(tmp_path: Path):
    """Without the C launcher (TILELANG_NO_NATIVE_LAUNCH=1) the generated Python fast path and
    the ctypes launch do the same."""
    script = tmp_path / "python_path.py"
    script.write_text(textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_multi_gpu import fresh, run, check
        for i in range(6):
            x, y, out = fresh(1 - i % 2, 1000 + i)
            run(torch.cuda.current_stream(x.device), x, y, out)
            check(x, y, out)
        assert torch.cuda.current_device() == 0
        print("ok")
    """))
    env = {**os.environ, "TILELANG_NO_NATIVE_LAUNCH": "1"}
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok"]
