"""Pieces of autotuning: replace_hints' copies, the progress line, the keys, array snapshots,
the timing of interpreter runs, cuTile's exception constructors."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
import tuning_kernels as tk

import tilelang as ct
from tilelang.errors import TileCompilerExecutionError, TileCompilerTimeoutError
from tilelang.runtime.state import state_of
from tilelang.tune.keys import arrays_in, key_of
from tilelang.tune.progress import Progress
from tilelang.tune.snapshot import Snapshots
from tilelang.tune.timing import benchmark


def test_replace_hints_remembers_its_copies() -> None:
    eight = tk.scaled_copy.replace_hints(num_warps=8)
    assert eight is not tk.scaled_copy and eight.options.num_warps == 8
    assert tk.scaled_copy.replace_hints(num_warps=8) is eight  # compiled once, not per call
    assert tk.scaled_copy.replace_hints(num_warps=4) is not eight
    assert state_of(eight) is not state_of(tk.scaled_copy)
    assert eight.replace_hints(occupancy=2).options.num_warps == 8


def test_replace_hints_unknown_name() -> None:
    with pytest.raises(TypeError, match=r"replace_hints: unknown hint 'num_stages'; the hints "
                                        r"are num_warps, interpret"):
        tk.scaled_copy.replace_hints(num_stages=3)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_after_a_second_on_a_terminal() -> None:
    now = [0.0]
    out = Terminal()
    progress = Progress("tuning add", out=out, clock=lambda: now[0])
    progress.update("compiling", 1, 6)
    assert out.getvalue() == ""  # quick searches stay silent
    now[0] = 1.5
    progress.update("timing config", 2, 6, failed=1)
    assert out.getvalue() == "\r\x1b[Ktuning add: timing config 2/6, 1 failed (1.5 s)"
    progress.close()
    assert out.getvalue().endswith("\r\x1b[K")


def test_progress_is_silent_off_a_terminal_or_when_disabled() -> None:
    out = io.StringIO()
    progress = Progress("tuning", out=out, clock=lambda: 5.0)
    progress.update("timing config", 1, 2)
    quiet = Progress("tuning", enabled=False, out=Terminal(), clock=lambda: 5.0)
    quiet.update("timing config", 1, 2)
    assert out.getvalue() == "" and not quiet.shown


def test_keys() -> None:
    x = np.zeros((3, 4), np.float32)
    key = key_of(["n", "x", "pair"], ["x", "n", "pair", "y"],
                 (x, np.int64(7), (1, x[0]), np.zeros(2, np.int8)))
    assert key == (("n", 7), ("x", ("array", (3, 4), "float32")),
                   ("pair", (1, ("array", (4,), "float32"))),
                   ("dtypes", ("float32", "float32", "int8")))
    assert hash(key)
    assert arrays_in([x, (1.0, x)]) == [x, x]
    assert arrays_in(np.float32(1)) == []


def test_snapshots_put_arrays_back() -> None:
    a = np.arange(6, dtype=np.float32)
    view = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]  # strided
    broadcast = np.broadcast_to(np.float32(1), (5,))  # read-only: skipped
    snaps = Snapshots([("a", a), ("view", view), ("b", broadcast)])
    a[:] = -1
    view[:] = 0
    snaps.restore()
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(view, np.arange(12).reshape(3, 4)[:, ::2])


def test_snapshot_of_something_it_cannot_copy_warns() -> None:
    class Opaque:
        shape = (2,)
        dtype = "float32"

    with pytest.warns(UserWarning, match="cannot restore argument `w`"):
        Snapshots([("w", Opaque())])


def test_torch_cpu_tensors_are_restored() -> None:
    torch = pytest.importorskip("torch")
    t = torch.arange(4.0)
    snaps = Snapshots([("t", t)])
    t.add_(1)
    snaps.restore()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_interpreter_runs_are_timed_by_the_wall_clock() -> None:
    x = np.arange(256, dtype=np.float32)
    out = np.zeros_like(x)
    us = benchmark(None, (4,), tk.scaled_copy, (x, out, 2.0, 64))
    assert us > 0
    np.testing.assert_array_equal(out, 2 * x)


def test_cutile_exception_constructors() -> None:
    timeout = TileCompilerTimeoutError("compiling took 9 s", "-O3", None)
    assert str(timeout) == "compiling took 9 s" and timeout.compiler_flags == "-O3"
    assert isinstance(timeout, ct.TileError)
    failed = TileCompilerExecutionError(1, "tileiras: bad things", "", None)
    assert str(failed) == "Return code 1\ntileiras: bad things"
    ours = TileCompilerExecutionError("stage simt failed", None, hint="reproduce with ...")
    assert "hint: reproduce with" in str(ours)
    assert str(pickle.loads(pickle.dumps(timeout))) == "compiling took 9 s"
