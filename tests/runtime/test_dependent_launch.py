"""Programmatic dependent launch on the CPU: the launch keyword, the interpreter's (ordinary)
launch, and the driver call the GPU path makes (cuLaunchKernelEx with the stream-serialization
attribute), against a stand-in for the driver function. tests/gpu/ runs it on the GPU."""

from __future__ import annotations

import ctypes
import struct
from types import SimpleNamespace

import numpy as np
import pytest

import tilelang as ct
from tilelang.cuda_compat import driver
from tilelang.interface.specs import ArraySpec, ScalarSpec
from tilelang.language import dtypes as dt
from tilelang.runtime import launcher as launcher_module
from tilelang.runtime import native_launch
from tilelang.runtime.binary import LoadedKernel
from tilelang.runtime.dependent_launch import programmatic_attribute


@ct.kernel
def consumer(x, y):
    ct.grid_dependency_control_wait()
    ct.store(y, (0,), ct.load(x, (0,), (8,)) * 2)
    ct.grid_dependency_control_launch_dependents()


def test_the_interpreter_runs_a_dependent_launch_as_an_ordinary_one(monkeypatch):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    ct.launch(None, 1, consumer, (x, y), programmatic_dependent_launch=True)
    np.testing.assert_array_equal(y, x * 2)
    ct.launch(None, 1, consumer, (x, y), programmatic_dependent_launch=False)


@pytest.mark.parametrize("flag", [1, "yes", None])
def test_the_keyword_must_be_a_bool(monkeypatch, flag):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="expected argument programmatic_dependent_launch to "
                                        "have type bool"):
        ct.launch(None, 1, consumer, (x, x), programmatic_dependent_launch=flag)


def test_the_attribute_allows_programmatic_stream_serialization():
    attribute = programmatic_attribute()
    assert attribute.id == \
        driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    assert attribute.value.programmaticStreamSerializationAllowed == 1


def test_launch_ex_packs_the_parameters_and_passes_the_attribute(monkeypatch):
    monkeypatch.setattr(native_launch, "native_module", lambda: None)  # the Python path
    calls = []

    def fake_launch_ex(config, function, params, extra):
        pointers = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = (struct.unpack("<Q", ctypes.string_at(pointers[0], 8))[0],
                  struct.unpack("<i", ctypes.string_at(pointers[3], 4))[0])
        calls.append((config.gridDimX, config.gridDimY, config.gridDimZ, config.blockDimX,
                      config.sharedMemBytes, config.numAttrs, config.attrs[0].id,
                      int(function), values))
        return (driver.CUresult.CUDA_SUCCESS,)

    monkeypatch.setattr(driver, "cuLaunchKernelEx", fake_launch_ex)
    loaded = LoadedKernel(handle=0x1234, context=0, device=0, kernel=None, code=None, shared=512)
    signature = (ArraySpec(dt.float32, 1, (True,), 16), ScalarSpec(dt.int32))
    launcher = launcher_module.Launcher(loaded, signature, threads=128)
    launcher.launch_ex(0, (3, 2, 1), (0xABC000, 64, 1, -7), [programmatic_attribute()])
    assert calls == [(3, 2, 1, 128, 512, 1,
                      driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                      0x1234, (0xABC000, -7))]


def test_a_launcher_made_for_the_c_path_gets_its_python_path_once(monkeypatch):
    """launch_ex packs in Python; a launcher made for the C path makes that path on its first
    such launch, once, however many threads make their first one at the same moment."""
    import threading
    import time

    native = SimpleNamespace(launch=lambda *a: None)
    monkeypatch.setattr(native_launch, "native_module", lambda: native)
    monkeypatch.setattr(driver, "cuLaunchKernelEx", lambda *a: (driver.CUresult.CUDA_SUCCESS,))
    made = []
    real = launcher_module.Launcher._init_python_path

    def slow_init(self):
        made.append(self)
        time.sleep(0.05)  # the window two unguarded threads would both pass through
        real(self)

    monkeypatch.setattr(launcher_module.Launcher, "_init_python_path", slow_init)
    loaded = LoadedKernel(handle=0x1234, context=0, device=0, kernel=None, code=None, shared=0)
    launcher = launcher_module.Launcher(loaded, (ScalarSpec(dt.int32),), threads=32)
    assert made == []  # the C path packs on its own
    threads = [threading.Thread(target=launcher.launch_ex,
                                args=(0, (1, 1, 1), (5,), [programmatic_attribute()]))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == [launcher]
