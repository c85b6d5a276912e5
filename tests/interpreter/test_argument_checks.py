"""Arguments the launch checks on every backend: read-only NumPy arrays are accepted for the
parameters a kernel never writes to (and refused, naming the parameter and the write, for the
others); NumPy masked arrays are refused; a `stream` that is not a stream is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilelang as ct
from tilelang.runtime.state import state_of
from tilelang.runtime.streams import check_stream, stream_handle


@pytest.fixture(autouse=True)
def _interpret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_INTERPRET", "1")


def read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


@ct.kernel
def scale(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (B,)) * 2)  # the store into y


@ct.kernel
def scale_rows(x, w, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i, 0), ct.load(x, (i, 0), (1, B)) * ct.load(w, (0,), (B,)))


# ----- read-only arrays ------------------------------------------------------------------------


def test_read_only_inputs_are_accepted():
    x = read_only(np.arange(8, dtype=np.float32))
    y = np.zeros(8, np.float32)
    ct.launch(None, (2,), scale, (x, y, 4))
    np.testing.assert_array_equal(y, 2 * x)


def test_broadcast_views_are_accepted_as_inputs():
    x = np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4))  # read-only, stride 0
    w = np.broadcast_to(np.float32(3), (4,))
    assert not x.flags.writeable and not w.flags.writeable
    y = np.zeros((3, 4), np.float32)
    ct.launch(None, (3,), scale_rows, (x, w, y, 4))
    np.testing.assert_array_equal(y, 3 * x)


def test_a_read_only_output_is_refused_at_its_store():
    x = np.arange(8, dtype=np.float32)
    y = read_only(np.zeros(8, np.float32))
    with pytest.raises(ct.TileArgumentError) as info:
        ct.launch(None, (2,), scale, (x, y, 4))
    text = str(info.value)
    assert "argument `y` is a read-only NumPy array" in text and "a store" in text
    assert "ct.store(y, (i,), ct.load(x, (i,), (B,)) * 2)  # the store into y" in text
    assert __file__ in text


@ct.kernel
def scatter_into(x, idx):
    ct.scatter(x, ct.load(idx, (0,), (4,)), 1.0)


@ct.kernel
def count_into(hist, idx):
    ct.atomic_add(hist, ct.load(idx, (0,), (4,)), 1)


@ct.kernel
def store_into_slice(x, y, n):
    part = y.slice(0, n, n + 4)
    ct.store(part, (0,), ct.load(x, (0,), (4,)))


@ct.kernel
def store_into_raw_memory(x, y):
    ct.store(y, (0,), ct.load(x, (0,), (4,)))
    y.get_raw_memory().atomic_add_offset(ct.arange(4, dtype=ct.int32), 1.0)


@ct.kernel
def store_into_listed(x, ys, k):
    ct.store(ys[k], (0,), ct.load(x, (0,), (4,)))


@ct.kernel
def store_in_a_branch(x, y, flag):
    if flag > 0:
        for i in range(2):
            ct.store(y, (i,), ct.load(x, (i,), (2,)))


@ct.kernel
def store_into_chosen(x, y, z, flag):
    if flag > 0:
        a = y
    else:
        a = z
    ct.store(a, (0,), ct.load(x, (0,), (4,)))


def arr(read_only_: bool = False, dtype: Any = np.float32, n: int = 8) -> np.ndarray:
    a = np.zeros(n, dtype) if dtype != np.int32 else np.arange(n, dtype=dtype) % 4
    return read_only(a) if read_only_ else a


# kernel, its arguments (`out`: the written array read-only, `ins`: the others), the parameter
# written, the kind of write
WRITES = [
    pytest.param(scatter_into, lambda out, ins: (arr(out), arr(ins, np.int32)), "x",
                 "a scatter", id="scatter"),
    pytest.param(count_into, lambda out, ins: (arr(out, np.int32), arr(ins, np.int32)), "hist",
                 "an atomic update", id="atomic"),
    pytest.param(store_into_slice, lambda out, ins: (arr(ins), arr(out), 2), "y", "a store",
                 id="slice"),
    pytest.param(store_into_raw_memory, lambda out, ins: (arr(ins), arr(out)), "y", "a store",
                 id="raw-memory"),
    pytest.param(store_into_listed, lambda out, ins: (arr(ins), [arr(), arr(out)], 1), "ys",
                 "a store", id="list"),
    pytest.param(store_into_chosen, lambda out, ins: (arr(ins), arr(out), arr(), 1), "y",
                 "a store", id="chosen-y"),
    pytest.param(store_into_chosen, lambda out, ins: (arr(ins), arr(), arr(out), 0), "z",
                 "a store", id="chosen-z"),
    pytest.param(store_in_a_branch, lambda out, ins: (arr(ins), arr(out), 1), "y", "a store",
                 id="branch"),
]


@pytest.mark.parametrize(("kernel", "make", "name", "what"), WRITES)
def test_every_kind_of_write_is_found(kernel, make, name, what):
    with pytest.raises(ct.TileArgumentError, match=f"argument `{name}` is a read-only") as info:
        ct.launch(None, (1,), kernel, make(True, False))
    assert what in str(info.value)


@pytest.mark.parametrize(("kernel", "make", "name", "what"), WRITES)
def test_the_inputs_of_those_kernels_may_be_read_only(kernel, make, name, what):
    ct.launch(None, (1,), kernel, make(False, True))


# ----- masked arrays ---------------------------------------------------------------------------


def test_masked_arrays_are_refused():
    x = np.ma.masked_array(np.arange(8, dtype=np.float32), mask=[0, 1] * 4)
    with pytest.raises(ct.TileArgumentError, match="argument `x` is a NumPy masked array"):
        ct.launch(None, (2,), scale, (x, np.zeros(8, np.float32), 4))
    with pytest.raises(ct.TileArgumentError, match="`y` is a NumPy masked array") as info:
        ct.launch(None, (2,), scale, (np.zeros(8, np.float32), np.ma.zeros(8, np.float32), 4))
    assert "filled" in str(info.value)


def test_masked_arrays_inside_lists_are_refused():
    ys = [np.zeros(4, np.float32), np.ma.zeros(4, np.float32)]
    with pytest.raises(ct.TileArgumentError, match="masked array"):
        ct.launch(None, (1,), store_into_listed, (np.zeros(4, np.float32), ys, 0))


def test_masked_arrays_are_refused_on_the_gpu_path(monkeypatch):
    """The GPU path reads arguments through the same specialization (before any device check,
    so no GPU is needed to see it)."""
    monkeypatch.delenv("TILELANG_INTERPRET")
    on_gpu = ct.kernel(scale._pyfunc, interpret=False)
    x = np.ma.masked_array(np.arange(8, dtype=np.float32), mask=[0, 1] * 4)
    with pytest.raises(ct.TileArgumentError, match="argument `x` is a NumPy masked array"):
        ct.launch(None, (2,), on_gpu, (x, np.zeros(8, np.float32), 4))
    with pytest.raises(ct.TileArgumentError, match="masked array"):
        ct.compile(on_gpu, (x, np.zeros(8, np.float32), 4), stop_after="tile")


# ----- streams ---------------------------------------------------------------------------------


class ProtocolStream:
    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, 0)


class HandleStream:  # CuPy's and cuda.core's attributes
    ptr = 0


NOT_STREAMS = ["abc", 1.5, True, object(), [0], b"0"]
NOT_STREAM_IDS = ["str", "float", "bool", "object", "list", "bytes"]


@pytest.mark.parametrize("stream", NOT_STREAMS, ids=NOT_STREAM_IDS)
def test_the_interpreter_refuses_what_is_not_a_stream(stream):
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    with pytest.raises(ct.TileArgumentError, match="as a CUDA stream") as info:
        ct.launch(stream, (2,), scale, (x, y, 4))
    assert "torch.cuda.Stream" in str(info.value) and "None" in str(info.value)
    assert not y.any()  # refused before running


@pytest.mark.parametrize("stream", [None, 0, 7, ProtocolStream(), HandleStream()],
                         ids=lambda s: type(s).__name__)
def test_the_interpreter_takes_what_a_gpu_launch_takes(stream):
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    ct.launch(stream, (2,), scale, (x, y, 4))
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("stream", NOT_STREAMS, ids=NOT_STREAM_IDS)
def test_the_gpu_paths_refuse_them_with_the_same_message(stream):
    from tilelang.runtime.gpu_launch import slow_launch

    with pytest.raises(ct.TileArgumentError) as checked:
        check_stream(stream)
    with pytest.raises(ct.TileArgumentError) as handled:
        stream_handle(stream)  # what the fast paths call
    assert str(checked.value) == str(handled.value)
    on_gpu = ct.kernel(scale._pyfunc, interpret=False)
    with pytest.raises(ct.TileArgumentError, match="as a CUDA stream"):  # before any compile
        slow_launch(on_gpu, stream, (1,), (np.zeros(8, np.float32), np.zeros(8, np.float32), 4))
    assert not state_of(on_gpu).used
