"""Autotuning: the compile workers' side (compile_pool.py forks them).

A worker is a fork of the searching process: it has the jobs (and so the kernels' functions,
wherever they were defined) and the compiler the parent imported. Worker `k` first forks
workers 2k+1 and 2k+2 (a tree: the forks of many workers overlap), then takes job numbers from
the shared task pipe until it is empty and answers on its own result pipe with messages
("start", job) and ("done", job, Built or Failure). The workers form a process group (the
parent stops a batch it abandons with one signal). A worker never touches the GPU (CUDA does
not survive a fork) and always leaves through os._exit (no atexit handlers, no flushing of the
parent's buffers).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import struct
import sys
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn

if TYPE_CHECKING:
    from tilelang.runtime.build import BuildJob, Built


@dataclass
class Failure:
    """A job that did not compile: the exception's type and message."""

    kind: type[BaseException]
    message: str


def write_message(out: BinaryIO, value: object) -> None:
    data = pickle.dumps(value)
    out.write(struct.pack("<Q", len(data)) + data)
    out.flush()


def read_message(inp: BinaryIO) -> Any:
    head = inp.read(8)
    if len(head) < 8:
        raise EOFError
    (size,) = struct.unpack("<Q", head)
    data = inp.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


TASK = struct.Struct("<I")  # a job number on the task pipe


# Objects of the parent a worker must not free: their finalizers may wait for threads of the
# parent, which the fork did not copy (an MLIR context joins the threads of its pool), or take
# a lock one of them held at the fork (a buffered stream's).
_INHERITED: list[object] = []


def run_worker(index: int, count: int, jobs: list[Any], tasks: tuple[int, int],
               results: list[tuple[int, int]], assembler: str) -> NoReturn:
    """The life of forked worker `index` of `count`; never returns."""
    # The cyclic collector never visits what the parent made (above): twice in one session a
    # worker slept forever on a futex at an allocation in pure Python code (where a
    # collection runs finalizers: an inherited MLIR context's joins its pool's threads), its
    # CI run's pytest waiting for it.
    gc.freeze()
    children: list[int] = []
    try:
        if index == 0:  # the parent's ends (worker 0 closes them before forking the others)
            with contextlib.suppress(OSError):  # a process group of the workers, which the
                os.setpgid(0, 0)  # parent may stop at once (it sets it too: whichever is first)
            os.close(tasks[1])  # only the parent writes tasks: the pipe ends when it is done
            for read_end, _ in results:
                os.close(read_end)
            os.dup2(2, 1)  # what a compilation prints goes to stderr, not the parent's stdout
            _INHERITED.append(sys.stdout)  # (kept: its last reference would flush it)
            sys.stdout = sys.stderr
        for child in (2 * index + 1, 2 * index + 2):
            if child < count:
                children += _fork(child, count, jobs, tasks, results, assembler)
        for k, (_, write_end) in enumerate(results):  # after the forks: the children need theirs
            if k != index:
                os.close(write_end)
        with os.fdopen(results[index][1], "wb") as out:
            while len(data := os.read(tasks[0], TASK.size)) == TASK.size:
                (job,) = TASK.unpack(data)
                write_message(out, ("start", job))
                write_message(out, ("done", job, compile_job(jobs[job], assembler)))
    except BaseException:  # the parent is gone (a broken pipe), or an interrupt: just leave
        pass
    finally:
        for pid in children:
            with contextlib.suppress(BaseException):
                os.waitpid(pid, 0)
        os._exit(0)


def _fork(index: int, count: int, jobs: list[Any], tasks: tuple[int, int],
          results: list[tuple[int, int]], assembler: str) -> list[int]:
    try:
        with warnings.catch_warnings():  # Python 3.12: "multi-threaded, use of fork()": the
            warnings.simplefilter("ignore", DeprecationWarning)  # worker uses no thread
            pid = os.fork()
    except OSError:  # no more processes: the ones running take its share
        return []
    if pid == 0:
        run_worker(index, count, jobs, tasks, results, assembler)
    return [pid]


def compile_job(job: BuildJob, assembler: str) -> Built | Failure:
    """Built, or Failure (whose exception class the parent can unpickle)."""
    from tilelang.runtime.build import build

    try:
        return build(job, assembler)
    except Exception as e:
        kind = type(e)
        try:
            pickle.loads(pickle.dumps(kind))
        except Exception:  # a class the parent could not import back
            return Failure(RuntimeError, f"{kind.__name__}: {e}")
        return Failure(kind, str(e))


def gpu_free_assembler() -> str:
    """How a worker makes the cubin without a GPU context (backend/assemble.py's ASSEMBLERS):
    "ptxas" where the command is installed (what `auto` prefers: a whole program), else
    "nvjitlink", or "none" when neither is available (the caller then assembles the PTX:
    cuda.core's fallback, the driver's linker, needs CUDA, which a forked process must not
    use). Chosen in the caller before the fork, so the workers load nothing to find out."""
    import shutil

    if shutil.which("ptxas") is not None:
        import tilelang.backend.assemble  # noqa: F401  (imported once, before the fork)

        return "ptxas"
    try:
        from cuda.bindings import nvjitlink

        nvjitlink.version()
    except Exception:
        return "none"
    with contextlib.suppress(Exception):  # cuda.core decides on nvJitLink (asking the driver
        from cuda.core import _linker  # its version) once per process: here, not in a fork

        _linker._decide_nvjitlink_or_driver()
    return "nvjitlink"
