"""Structured kernel arguments on the GPU with torch tensors: tuples, lists of arrays, dataclass
instances, ScalarInt64 / IndexedWithInt64, and the launch paths they take (the generated fast
path must reuse a specialization without recompiling, and kernels without run-time parameters
must launch)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import pytest

import tilelang as ct
from tilelang.runtime.state import state_of

torch = pytest.importorskip("torch")


def compiled(kernel: ct.Kernel) -> int:
    """How many GPU specializations the kernel has built."""
    return len(state_of(kernel).launchers)


@ct.kernel
def tuple_args(pair, out, scalars: tuple[ct.ScalarInt64, int], cfg: tuple[ct.Constant[int], int]):
    a = ct.load(pair[0], (0,), (cfg[0],))
    b = ct.load(pair[1][0], (0,), (cfg[0],))
    ct.store(out, (0,), a + b * pair[1][1] + scalars[0] - scalars[1] + cfg[1])


def test_nested_tuples_and_partial_constants():
    a = torch.arange(16, dtype=torch.int64, device="cuda")
    b = torch.randint(-50, 50, (16,), dtype=torch.int64, device="cuda")
    out = torch.full((16,), -1, dtype=torch.int64, device="cuda")
    for big, extra in ((2**33 + 7, 5), (3, -4)):
        ct.launch(None, (1,), tuple_args, ((a, (b, 3)), out, (big, 5), (16, extra)))
        torch.cuda.synchronize()
        assert torch.equal(out, a + b * 3 + big - 5 + extra)
    assert compiled(tuple_args) == 1  # run-time values inside tuples do not recompile
    ct.launch(None, (1,), tuple_args, ((a, (b, 3)), out, (1, 5), (8, 0)))
    assert compiled(tuple_args) == 2  # a new constant does


@ct.kernel
def grouped_copy(As, Bs, scale, B: ct.Constant[int]):
    i = ct.bid(0)
    for g in range(len(As)):  # a run-time index into both lists
        t = ct.load(As[g], (i,), (B,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(Bs[g], (i,), t * scale + g)


@pytest.mark.parametrize("sizes", [(100,), (7, 300, 64)])
def test_lists_of_arrays(sizes):
    As = [torch.randn(n, device="cuda") for n in sizes]
    Bs = [torch.full((n,), float("nan"), device="cuda") for n in sizes]
    grid = (max(ct.cdiv(n, 64) for n in sizes),)
    ct.launch(None, grid, grouped_copy, (As, Bs, 2.0, 64))
    torch.cuda.synchronize()
    for g, (a, b) in enumerate(zip(As, Bs, strict=True)):
        torch.testing.assert_close(b, a * 2.0 + g)


@ct.kernel
def add_listed(arrays, out):
    bid = ct.full((), 0, dtype=ct.int32)
    res = ct.load(arrays[bid], (0, 0), (16, 16))  # a 0-d tile as the index
    res += ct.load(arrays[bid + 1], (0, 0), (16, 16)) + ct.load(arrays[2], (0, 0), (16, 16))
    ct.store(out, (0, 0), res)


def test_list_indexed_by_a_tile_and_a_constant():
    arrays = [torch.randint(0, 100, (16, 16), dtype=torch.int32, device="cuda") for _ in range(3)]
    out = torch.zeros(16, 16, dtype=torch.int32, device="cuda")
    ct.launch(torch.cuda.current_stream(), (1,), add_listed, (arrays, out))
    torch.cuda.synchronize()
    assert torch.equal(out, sum(arrays))


@dataclass(frozen=True)
class Problem:
    x: Any
    out: Any
    offset: float


@ct.kernel
def dataclass_arg(p, q):
    t = ct.load(p.x, (ct.bid(0),), (128,))
    ct.store(p.out, (ct.bid(0),), t + p.offset + q[1].offset)


def test_dataclass_arguments():
    x = torch.randn(512, device="cuda")
    out = torch.empty_like(x)
    other = Problem(None, None, 0.25)
    for offset in (1.5, -3.0):
        ct.launch(None, (4,), dataclass_arg, (Problem(x, out, offset), (0, other)))
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x + offset + 0.25)
    assert compiled(dataclass_arg) == 1


@ct.kernel
def large_scalar(x, big: ct.ScalarInt64):
    if big > 0:
        ct.store(x, (0,), ct.full((1,), big, ct.int64))


@pytest.mark.parametrize("big", [2**31, 2**40, 2**63 - 1, 17])
def test_scalar_int64(big):
    x = torch.zeros(1, dtype=torch.int64, device="cuda")
    for _ in range(2):  # the second launch takes a fast path
        ct.launch(torch.cuda.current_stream(), (1,), large_scalar, (x, big))
    torch.cuda.synchronize()
    assert x.item() == big


@ct.kernel
def int64_indexed(x: ct.IndexedWithInt64, out):
    ct.static_assert(x.shape[0].dtype == ct.int64)
    ct.store(out, (0,), ct.full((1,), x.shape[0] * x.strides[0], ct.int64))


def test_indexed_with_int64():
    x = torch.zeros((5, 3), device="cuda")
    out = torch.zeros(1, dtype=torch.int64, device="cuda")
    ct.launch(None, (1,), int64_indexed, (x, out))
    torch.cuda.synchronize()
    assert out.item() == 15


@ct.kernel
def static_shape(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0, 1))], out):
    t = ct.load(x, (0, 0), (16, 16))
    ct.store(out, (0, 0), t + x.shape[0])


def test_static_shapes_recompile_per_shape():
    k = ct.kernel(static_shape._pyfunc)
    for shape in ((16, 16), (32, 32), (16, 16)):
        x = torch.randint(0, 100, shape, dtype=torch.int32, device="cuda")
        out = torch.zeros((16, 16), dtype=torch.int32, device="cuda")
        ct.launch(None, (1,), k, (x, out))
        torch.cuda.synchronize()
        assert torch.equal(out, x[:16, :16] + shape[0])
    assert compiled(k) == 2


@ct.kernel
def no_parameters():
    pass


@ct.kernel
def constants_only(N: ct.Constant[int]):
    pass


def test_kernels_without_run_time_parameters():
    for _ in range(3):  # the generated fast path once had a syntax error for these
        ct.launch(None, (1,), no_parameters, ())
        ct.launch(torch.cuda.current_stream(), (2,), constants_only, (4,))
    torch.cuda.synchronize()
    assert no_parameters.fast_launch is not None and constants_only.fast_launch is not None


def test_argument_errors_are_type_errors():
    out = torch.zeros(4, device="cuda")
    with pytest.raises(TypeError, match="Received a tuple of length 3"):
        ct.launch(None, (1,), tuple_args, ((out, (out, 3)), out, (1, 2), (16, 1, 2)))
    with pytest.raises(TypeError, match="Could not interpret object of type 'Tensor'"):
        ct.launch(None, (1,), constants_only, ((out,),))
