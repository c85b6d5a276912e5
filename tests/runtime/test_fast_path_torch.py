"""The generated fast path does not import torch (a CuPy or cuda.core program never loads it);
one generated before torch's import still launches torch tensors, through `flatten`, and the
slow path has it generated again with torch's types."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest
import torch

import tilelang as ct
from tilelang.runtime import binary, fast_path, gpu_launch
from tilelang.runtime.state import state_of
from tilelang.runtime.streams import stream_handle


@ct.kernel
def plain(x, n, C: ct.Constant[int]):
    pass


class FakeLauncher:
    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.loaded = type("Loaded", (), {"device": 0})()

    def call(self, *args):
        self.calls.append(args)


def test_generated_before_torch_still_takes_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "torch")  # as in a program that never imported it
    state_of(plain).clear()
    fast = fast_path.generate(plain, lambda *a: pytest.fail("slow path"), stream_handle)
    assert not fast_path.uses_torch(fast)
    monkeypatch.setitem(sys.modules, "torch", torch)
    x = torch.zeros((2, 3))
    launcher = FakeLauncher()
    state_of(plain).fast_table[fast_path.fast_key(plain, (x, 5, 4))] = launcher
    fast(7, (2,), (x, 5, 4))
    assert launcher.calls == [(7, 2, 1, 1, x.data_ptr(), 2, 3, 3, 1, 5)]
    assert fast_path.uses_torch(fast_path.generate(plain, None, stream_handle))


def test_the_slow_path_regenerates_a_fast_path_without_torch(monkeypatch) -> None:
    monkeypatch.delitem(sys.modules, "torch")
    state_of(plain).clear()
    plain.fast_launch = fast_path.generate(plain, gpu_launch.slow_launch, stream_handle)
    monkeypatch.setitem(sys.modules, "torch", torch)
    launched = []
    monkeypatch.setattr(gpu_launch, "target", lambda k, s, a: (k.specialize(a), [], 0))
    monkeypatch.setattr(gpu_launch, "plan_of", lambda *a: SimpleNamespace(values=lambda *a: ()))
    monkeypatch.setattr(gpu_launch, "native_entry", lambda *a: None)
    monkeypatch.setattr(gpu_launch, "stream_handle", lambda *a: 0)
    monkeypatch.setattr(gpu_launch, "fast_key", lambda *a: None)
    monkeypatch.setattr(gpu_launch, "specialization",
                        lambda k, sig, d: launched.append(sig) or (lambda *a: None))
    gpu_launch.slow_launch(plain, None, (1,), (torch.zeros(4), 5, 4))
    assert len(launched) == 1 and plain.fast_launch is None  # the next launch generates it
    plain.fast_launch = None


def test_device_arch_asks_once_per_device(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []

    class Device:
        def __init__(self, ordinal: int) -> None:
            asked.append(ordinal)
            self.compute_capability = (9, 0) if ordinal == 0 else (8, 0)

    monkeypatch.setattr(binary, "Device", Device)
    binary.device_arch.cache_clear()
    try:
        assert [binary.device_arch(d) for d in (0, 0, 1, 0, 1)] == \
            ["sm_90", "sm_90", "sm_80", "sm_90", "sm_80"]
        assert asked == [0, 1]
    finally:
        binary.device_arch.cache_clear()


def test_generated_code_is_kept_on_disk(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILELANG_DISABLE_DISK_CACHE", raising=False)
    compiled = []

    def counting(source, filename, mode):
        compiled.append(filename)
        return compile(source, filename, mode)

    monkeypatch.setattr(fast_path, "compile", counting, raising=False)
    first = fast_path.generate(plain, None, stream_handle)
    (stored,) = (tmp_path / "fast-path").iterdir()
    again = fast_path.generate(plain, None, stream_handle)  # as a new process would
    assert compiled == ["<tilelang fast launch of plain>"]
    assert again.__code__.co_filename == first.__code__.co_filename
    assert again.__code__.co_code == first.__code__.co_code
    stored.write_bytes(b"damaged")  # compiled again, and stored again
    fast_path.generate(plain, None, stream_handle)
    assert len(compiled) == 2 and stored.read_bytes() != b"damaged"
    monkeypatch.setenv("TILELANG_DISABLE_DISK_CACHE", "1")
    fast_path.generate(plain, None, stream_handle)
    assert len(compiled) == 3
