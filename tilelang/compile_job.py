"""Compiler: one specialization to compile (a kernel's function, a signature, a target) and what
compiling it produces (PTX, the cubin, the launch facts). What the runtime asks of the compiler:
the runtime names a job, keys its caches by the job's identity, and loads the artifact; it
never reads source or assembles PTX itself. Importing this module loads no MLIR: the compiler
is imported when a job runs (a disk-cache hit never needs it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilelang import settings
from tilelang.interface.specs import ConstSpec, ParamSpec


@dataclass(frozen=True)
class CompileJob:
    """Everything compiling one specialization needs; it pickles (to run in a worker process)
    when the kernel's function can be imported by name."""

    fn: Callable[..., Any]
    name: str
    signature: tuple[ParamSpec, ...]
    arch: str  # what the PTX targets
    cubin_arch: str  # what the cubin is assembled for (the device's own architecture)
    num_warps: int | None  # None: the compiler chooses (compiler.choose_num_warps)
    occupancy: int | None
    fingerprint: str  # of the kernel's source and the globals it reads (frontend/source.py)

    def identity(self) -> tuple[Any, ...]:
        """What selects the artifact: equal identities compile to the same binary (the disk
        cache's key is a hash of it and of the compiler's own sources)."""
        target = self.arch if self.cubin_arch == self.arch else f"{self.arch}@{self.cubin_arch}"
        return (self.fingerprint, self.name, self.signature, target, self.num_warps,
                self.occupancy, constant_classes(self.signature), *settings.codegen_switches())


@dataclass
class Artifact:
    """A compiled specialization: what loading and launching it needs."""

    meta: dict[str, Any]  # name, arch, num_warps, shared_bytes, tensor_maps, block_threads
    ptx: str
    cubin: bytes | None  # None: no assembler was available (the driver then compiles the PTX)


def describe(fn: Callable[..., Any], name: str, signature: tuple[ParamSpec, ...], arch: str,
             device_arch: str, num_warps: int | None, occupancy: int | None) -> CompileJob:
    """The job of compiling `fn` for `signature`, PTX for `arch`, to run on a `device_arch`
    GPU."""
    from tilelang.frontend.source import fingerprint

    # PTX for an older target (TILELANG_ARCH=sm_80 on an H100) assembles for the device: a
    # cubin of another major architecture would not load there.
    cubin_arch = arch if arch.startswith(device_arch) else device_arch
    return CompileJob(fn, name, signature, arch, cubin_arch, num_warps, occupancy,
                      fingerprint(fn))


def run(job: CompileJob, assembler: str = "auto") -> Artifact:
    """Compile the job through its last stage, `cubin` (assembled by `assembler`, one of
    backend/assemble.py's ASSEMBLERS: forked workers pass one that needs no GPU)."""
    from tilelang.compiler import CompileOptions, compile_signature  # MLIR: only here

    options = CompileOptions(job.num_warps, job.arch, occupancy=job.occupancy,
                             cubin_arch=job.cubin_arch, assembler=assembler)
    compiled = compile_signature(job.fn, job.signature, options)
    if settings.explain_enabled():  # no silent cliffs: say which products missed the fast path
        from tilelang.explanation import warn_fallbacks

        warn_fallbacks(compiled)
    meta = {"name": job.name, "arch": job.arch, "num_warps": compiled.options.num_warps,
            "shared_bytes": compiled.metadata.get("shared_bytes", 0),
            "tensor_maps": compiled.metadata.get("tensor_maps", []),
            "block_threads": compiled.metadata.get("block_threads")}
    return Artifact(meta, compiled.ptx or "", compiled.cubin)


def assemble(job: CompileJob, ptx: str) -> bytes | None:
    """The cubin stage alone, for an artifact whose worker had no assembler."""
    from tilelang.backend.assemble import cubin

    return cubin(ptx, job.cubin_arch)


def constant_classes(signature: tuple[ParamSpec, ...]) -> list[str]:
    """The classes (name and source hash) of dataclass instances passed as constants: their
    methods compile into the kernel, so the disk cache key must change with them."""
    from tilelang.interface.arguments import class_key, is_instance

    found: list[str] = []

    def visit(value: object) -> None:
        if isinstance(value, tuple):
            for item in value:
                visit(item)
        elif is_instance(value):
            cls: type = type(value)  # annotated: mypy takes type[X] for no Hashable
            found.append(class_key(cls))

    for spec in signature:
        if isinstance(spec, ConstSpec):
            visit(spec.value)
    return found
