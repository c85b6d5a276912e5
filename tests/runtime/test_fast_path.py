"""The generated fast launch path, on the CPU: the code it generates for every kind of parameter
list compiles, computes the key the slow path registers, and passes the kernel parameters in
the order the kernel expects them. A fake launcher stands in for the GPU."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
import pytest
import torch

import tilelang as ct
from tilelang.interface.specs import ArraySpec, leaves
from tilelang.runtime import fast_path
from tilelang.runtime.launcher import parameter_format
from tilelang.runtime.state import state_of
from tilelang.runtime.streams import stream_handle


class FakeLauncher:
    """Records `call(stream, gx, gy, gz, *values)` (None: the launch succeeded)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.loaded = type("Loaded", (), {"device": 0})()

    def call(self, *args: Any) -> None:
        self.calls.append(args)


class Slow:
    """Stands in for the slow path: records what the fast path hands over."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, kernel: Any, stream: Any, grid: Any, args: Any) -> None:
        self.calls.append(args)


def generated(kernel: ct.Kernel) -> tuple[Any, Slow, dict]:
    slow = Slow()
    state_of(kernel).clear()
    return fast_path.generate(kernel, slow, stream_handle), slow, state_of(kernel).fast_table


def register(kernel: ct.Kernel, table: dict, args: tuple) -> FakeLauncher:
    """What the slow path does after a launch: file the launcher under the launch's key."""
    launcher = FakeLauncher()
    key = fast_path.fast_key(kernel, args)
    assert key is not None
    table[key] = launcher
    return launcher


def expected_values(kernel: ct.Kernel, args: tuple) -> list[Any]:
    """The kernel parameters, from the specialization's leaves (what simt/abi.py expects)."""
    values: list[Any] = []
    for spec, arg in zip(kernel.specialize(args), args, strict=True):
        for leaf, value in leaves(spec, arg):
            if isinstance(leaf, ArraySpec):
                values += [value.data_ptr(), *value.shape, *value.stride()]
            else:
                values.append(value)
    return values


@ct.kernel
def no_parameters():
    pass


@ct.kernel
def only_constants(N: ct.Constant[int], M: ct.Constant):
    pass


@pytest.mark.parametrize(("kernel", "args"), [(no_parameters, ()),
                                              (only_constants, (4, "x"))])
def test_kernels_without_run_time_parameters_launch_fast(kernel, args):
    fast, slow, table = generated(kernel)
    launcher = register(kernel, table, args)
    fast(0, (3,), args)
    fast(0, (2, 5), args)
    assert launcher.calls == [(0, 3, 1, 1), (0, 2, 5, 1)]
    assert slow.calls == []


def test_another_constant_goes_to_the_slow_path():
    fast, slow, table = generated(only_constants)
    register(only_constants, table, (4, "x"))
    fast(0, (1,), (5, "x"))
    fast(0, (1,), (4.0, "x"))  # 4.0 == 4 but compiles differently
    assert slow.calls == [(5, "x"), (4.0, "x")]


@ct.kernel
def plain(x, n, f, C: ct.Constant[int]):
    pass


def test_plain_arguments_are_passed_in_order():
    x = torch.zeros((3, 5))[:, 1:]
    args = (x, 7, 0.5, 2)
    fast, slow, table = generated(plain)
    launcher = register(plain, table, args)
    fast(11, (1,), args)
    assert launcher.calls == [(11, 1, 1, 1, *expected_values(plain, args))]
    assert launcher.calls[0][4:] == (x.data_ptr(), 3, 4, 5, 1, 7, 0.5)
    fast(0, (1,), (x, 2**40, 0.5, 2))  # an int beyond int32: another specialization
    fast(0, (1,), (x, True, 0.5, 2))  # a bool is not an int here
    fast(0, [1], args)  # a list grid
    assert len(slow.calls) == 3


@dataclass(frozen=True)
class Pair:
    a: Any
    b: Any


@ct.kernel
def structured(t, xs, d, c: tuple[ct.Constant[int], int], big: ct.ScalarInt64):
    pass


def structured_args(n: int = 3) -> tuple:
    x, y = torch.zeros(4), torch.ones((2, 3))
    return ((x, (n, 2.5)), [x, torch.zeros(4)], Pair(y, 9), (16, n), 5)


def test_structured_arguments_are_flattened_depth_first():
    args = structured_args()
    fast, slow, table = generated(structured)
    launcher = register(structured, table, args)
    fast(0, (1,), args)
    assert slow.calls == []
    (call,) = launcher.calls
    assert list(call[4:]) == expected_values(structured, args)
    slots = struct.calcsize(parameter_format(structured.specialize(args))) // 8
    assert len(call) - 4 == slots


def test_run_time_values_inside_structures_reuse_the_specialization():
    fast, slow, table = generated(structured)
    launcher = register(structured, table, structured_args(3))
    fast(0, (1,), structured_args(40))
    assert slow.calls == [] and len(launcher.calls) == 1


@pytest.mark.parametrize("change", ["constant", "structure", "list_length", "scalar_type",
                                    "namedtuple", "not_frozen"])
def test_structural_changes_go_to_the_slow_path(change):
    fast, slow, table = generated(structured)
    register(structured, table, structured_args())
    t, xs, d, c, big = structured_args()
    if change == "constant":
        c = (32, 3)
    elif change == "structure":
        t = (t[0], (3, 2.5, 1))
    elif change == "list_length":
        xs = [*xs, torch.zeros(4)]
    elif change == "scalar_type":
        t = (t[0], (3.0, 2.5))
    elif change == "namedtuple":
        from collections import namedtuple

        t = namedtuple("T", "x y")(*t)
    else:
        d = Thawed(1, 2)
    fast(0, (1,), (t, xs, d, c, big))
    assert len(slow.calls) == 1


@dataclass
class Thawed:
    a: Any
    b: Any


def test_scalar_int64_parameters_take_any_64_bit_int():
    fast, slow, table = generated(structured)
    launcher = register(structured, table, structured_args())
    t, xs, d, c, _ = structured_args()
    fast(0, (1,), (t, xs, d, c, 2**40))
    fast(0, (1,), (t, xs, d, c, -5))
    assert [call[-1] for call in launcher.calls] == [2**40, -5]
    fast(0, (1,), (t, xs, d, c, 2**63))  # beyond int64: the slow path raises
    assert len(slow.calls) == 1


def test_fast_key_matches_the_specialization():
    """Arguments with one key have one signature (the table may not mix specializations)."""
    a, b = structured_args(3), structured_args(1000)
    assert fast_path.fast_key(structured, a) == fast_path.fast_key(structured, b)
    assert structured.specialize(a) == structured.specialize(b)


@ct.kernel
def annotated(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,))], n):
    pass


def test_compiled_in_extents_are_part_of_the_key():
    fast, slow, table = generated(annotated)
    register(annotated, table, (torch.zeros(8), 1))
    fast(0, (1,), (torch.zeros(16), 1))
    assert len(slow.calls) == 1
    assert annotated.specialize((torch.zeros(8), 1)) != annotated.specialize((torch.zeros(16), 1))


def test_numpy_arrays_never_take_the_fast_path():
    args = (np.zeros(4, np.float32), 1, 0.5, 2)
    assert fast_path.fast_key(plain, args) is None  # the slow path never registers them
    fast, slow, _ = generated(plain)
    fast(0, (1,), args)
    assert len(slow.calls) == 1


def test_slow_and_fast_paths_pass_the_same_parameters():
    """The slow path's parameter values (from the specialization) are the fast path's."""
    from tilelang.interface.host_arrays import array_facts
    from tilelang.runtime.parameters import plan_of

    args = structured_args()
    signature = structured.specialize(args)
    facts = [("leaf", array_facts(value, "leaf") if isinstance(leaf, ArraySpec) else None)
             for spec, arg in zip(signature, args, strict=True)
             for leaf, value in leaves(spec, arg)]
    fast, _, table = generated(structured)
    launcher = register(structured, table, args)
    fast(0, (1,), args)
    assert list(plan_of(signature).values(args, facts)) == \
        list(launcher.calls[0][4:])


@ct.kernel
def implicit_constants(x, dtype, member):
    pass


def test_dtypes_and_enum_members_are_keyed_as_constants():
    args = (torch.zeros(4), torch.float16, ct.PaddingMode.ZERO)
    fast, slow, table = generated(implicit_constants)
    launcher = register(implicit_constants, table, args)
    fast(0, (1,), args)
    fast(0, (1,), (torch.zeros(4), np.float16, ct.PaddingMode.ZERO))  # another key
    assert len(launcher.calls) == 1 and len(slow.calls) == 1
    assert implicit_constants.specialize(args) == \
        implicit_constants.specialize((torch.zeros(4), np.float16, ct.PaddingMode.ZERO))


def test_empty_grid_is_one_block():
    fast, slow, table = generated(no_parameters)
    launcher = register(no_parameters, table, ())
    fast(0, (), ())
    assert launcher.calls == [(0, 1, 1, 1)] and slow.calls == []
    from tilelang.runtime.grid import normalize_grid

    assert normalize_grid(()) == (1, 1, 1)


class RecordingLauncher(FakeLauncher):
    """What specialization() returns: called by the slow path, `.call` by the fast one."""

    def __call__(self, stream: Any, gx: int, gy: int, gz: int, values: tuple) -> None:
        self.call(stream, gx, gy, gz, *values)


def test_slow_path_registers_what_the_fast_path_finds(monkeypatch):
    """The slow path's glue on the CPU: CPU tensors pass for device arrays, a fake launcher
    for the compiled kernel. Its first launch registers the key; the next one is fast."""
    import dataclasses as dc

    from tilelang.runtime import gpu_launch

    def on_device(value: Any, name: str) -> Any:
        found = gpu_launch_facts(value, name)
        return None if found is None else dc.replace(found, device="cuda", device_id=0)

    gpu_launch_facts = gpu_launch.array_facts
    launcher = RecordingLauncher()
    monkeypatch.setattr(gpu_launch, "array_facts", on_device)
    slow_launches: list[int] = []

    def specialization(kernel: Any, signature: Any, device: int) -> RecordingLauncher:
        slow_launches.append(device)
        return launcher

    monkeypatch.setattr(gpu_launch, "specialization", specialization)
    monkeypatch.setattr(gpu_launch, "native_entry", lambda *args: None)
    monkeypatch.setattr(gpu_launch.binary, "current_ordinal", lambda: 0)
    state_of(structured).clear()
    structured.fast_launch = None
    args = structured_args()
    gpu_launch.launch_on_gpu(0, (2,), structured, args)
    gpu_launch.launch_on_gpu(0, (3,), structured, structured_args(99))
    first, second = launcher.calls
    assert first[:4] == (0, 2, 1, 1) and second[:4] == (0, 3, 1, 1)
    assert list(first[4:]) == expected_values(structured, args)
    assert slow_launches == [0]  # the second launch found the first's key
