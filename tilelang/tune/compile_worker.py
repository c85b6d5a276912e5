"""Autotuning: the compile worker process (started by compile_pool.py, one job at a time).

It runs with the parent's `sys.path` (given on its command line) and environment. Messages
both ways are pickles behind an 8-byte length; the first one out is "ready", once the compiler
is imported. Each message in is (module, qualified name of the kernel's function, the
`BuildJob` without the function); each answer is ("ok", Built), ("error", exception type,
message), or ("local", why) when this process cannot compile it the way the parent would (the
kernel's module does not import here, or its globals differ), so the parent compiles it itself.
"""

from __future__ import annotations

import importlib
import os
import pickle
import shutil
import struct
import sys
from dataclasses import replace
from typing import Any, BinaryIO


def write_message(out: BinaryIO, value: Any) -> None:
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


def answer(payload: bytes) -> tuple[Any, ...]:
    from tilelang.frontend.source import fingerprint
    from tilelang.runtime.build import build

    try:
        module, qualname, job = pickle.loads(payload)
        job = replace(job, fn=_function(module, qualname))
    except Exception as e:  # the kernel's module cannot be imported here
        return ("local", f"{type(e).__name__}: {e}")
    if fingerprint(job.fn) != job.fingerprint:
        return ("local", "the kernel's source or globals differ in the worker")
    try:
        return ("ok", build(job, assemble_here))
    except Exception as e:
        kind = type(e)
        try:
            pickle.loads(pickle.dumps(kind))
        except Exception:  # a class the parent could not import back
            return ("error", RuntimeError, f"{kind.__name__}: {e}")
        return ("error", kind, str(e))


def assemble_here(ptx: str, arch: str) -> bytes | None:
    """The cubin, when this process can make it without a GPU context (nvJitLink, or ptxas);
    else None, and the parent assembles it (cuda.core's fallback, the driver's linker, would
    open a context on the GPU in every worker)."""
    try:
        from cuda.bindings import nvjitlink

        nvjitlink.version()
    except Exception:
        if shutil.which("ptxas") is None:
            return None
        from tilelang.backend.assemble import assemble

        try:
            return assemble(ptx, arch)[0]
        except Exception:
            return None
    from tilelang.runtime import binary

    return binary.to_cubin(ptx, arch)


def _function(module: str, qualname: str) -> Any:
    """The kernel's Python function, found by name (through its @kernel object)."""
    value: Any = importlib.import_module(module)
    for part in qualname.split("."):
        value = getattr(value, part)
    return getattr(value, "fn", value)


def main() -> None:
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed while compiling goes to stderr, not into the protocol
    inp = sys.stdin.buffer
    import tilelang.compiler  # (the imports are most of a worker's start-up)
    import tilelang.runtime.build  # noqa: F401

    write_message(out, "ready")
    while True:
        try:
            payload = read_message(inp)
        except EOFError:  # the parent is gone
            return
        write_message(out, answer(payload))
