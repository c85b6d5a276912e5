"""Runtime: a specialization's binary on a device: from the kernel's memory, from the disk cache,
or compiled now (the compiler is imported only then); loaded, and wrapped in a Launcher."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tilelang import settings
from tilelang.backend.assemble import to_cubin
from tilelang.interface.kernel import Kernel
from tilelang.interface.specs import ConstSpec, ParamSpec
from tilelang.runtime import binary, disk_cache
from tilelang.runtime.launcher import Launcher


def specialization(kernel: Kernel, signature: tuple[ParamSpec, ...], device: int) -> Launcher:
    """The launcher of a signature on a device: from memory, from the disk cache, or compiled
    now."""
    arch = settings.arch_override() or binary.device_arch(device)
    key = memory_key(signature, arch, device)
    launcher = kernel.cache.get(key)
    if launcher is None:
        with kernel.lock:  # threads launching it cold at once build it once
            launcher = kernel.cache.get(key)
            if launcher is None:
                launcher = kernel.cache[key] = _build(kernel, signature, arch, device)
    return launcher


def memory_key(signature: tuple[ParamSpec, ...], arch: str, device: int) -> tuple:
    """A loaded specialization's key in the kernel's in-memory cache."""
    return ("gpu", signature, arch, device, *settings.codegen_switches())


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


@dataclass(frozen=True)
class BuildJob:
    """Everything compiling one specialization needs; it pickles (to run in a worker process)
    when the kernel's function can be imported by name."""

    fn: Any
    name: str
    signature: tuple[ParamSpec, ...]
    arch: str  # what the PTX targets
    native_arch: str  # what the cubin is assembled for (the device's own architecture)
    num_warps: int | None  # None: the compiler chooses (compiler.choose_num_warps)
    occupancy: int | None
    fingerprint: str  # of the kernel's source and the globals it reads (frontend/source.py)
    key: str  # the disk cache key


@dataclass
class Built:
    meta: dict[str, Any]
    ptx: str | None  # None: served from the disk cache with a cubin, the PTX left unread
    cubin: bytes | None
    source: str  # "disk" or "compiled"


def build_job(kernel: Kernel, signature: tuple[ParamSpec, ...], device: int) -> BuildJob:
    from tilelang.frontend.source import fingerprint

    arch = settings.arch_override() or binary.device_arch(device)
    native = binary.device_arch(device)
    hints = kernel.options.for_arch(arch)  # ByTarget hints: their values for this arch
    num_warps, occupancy = hints.num_warps, hints.occupancy
    digest = fingerprint(kernel.fn)
    # PTX for an older target (TILELANG_ARCH=sm_80 on an H100) assembles for this device: a
    # cubin of another major architecture would not load here. The cubin's arch keys the disk
    # cache too, so a cache shared with another GPU never hands it the wrong one.
    cubin_arch = arch if arch.startswith(native) else native
    target = arch if cubin_arch == arch else f"{arch}@{cubin_arch}"
    key = disk_cache.cache_key(digest, kernel.name, signature, target, num_warps, occupancy,
                               constant_classes(signature), *settings.codegen_switches())
    return BuildJob(kernel.fn, kernel.name, signature, arch, cubin_arch, num_warps, occupancy,
                    digest, key)


def build(job: BuildJob, assemble: Any = None) -> Built:
    """PTX and cubin of a job: from the disk cache, or compiled now (and stored there).

    `assemble(ptx, arch)` makes the cubin (default `backend.assemble.to_cubin`); compile workers
    pass one that needs no GPU and may give None, left to `install`."""
    cached = disk_cache.load(job.key)
    if cached is not None:
        meta, ptx, cubin = cached
        return Built(meta, ptx, cubin, "disk")
    from tilelang.compiler import CompileOptions, compile_signature  # MLIR: only on a miss

    compiled = compile_signature(job.fn, job.signature,
                                 CompileOptions(job.num_warps, job.arch, occupancy=job.occupancy))
    ptx = compiled.ptx or ""
    meta = {"name": job.name, "arch": job.arch, "num_warps": compiled.options.num_warps,
            "shared_bytes": compiled.metadata.get("shared_bytes", 0),
            "tensor_maps": compiled.metadata.get("tensor_maps", []),
            "block_threads": compiled.metadata.get("block_threads")}
    cubin = (assemble or to_cubin)(ptx, job.native_arch)
    disk_cache.store(job.key, meta, ptx, cubin)
    return Built(meta, ptx, cubin, "compiled")


def install(kernel: Kernel, job: BuildJob, built: Built, device: int) -> Launcher:
    """Load a built specialization on the device and remember it in the kernel's cache."""
    if built.cubin is None:  # a worker could not assemble it: do it here (and keep it)
        assert built.ptx is not None, "a specialization comes with its PTX or its cubin"
        built.cubin = to_cubin(built.ptx, job.native_arch)
        if built.cubin is not None:
            disk_cache.store(job.key, built.meta, built.ptx, built.cubin)
    shared = int(built.meta.get("shared_bytes", 0))
    loaded = binary.load(kernel.name, built.ptx, built.cubin, device, shared)
    threads = built.meta.get("block_threads") or 32 * (job.num_warps or built.meta["num_warps"])
    launcher = Launcher(loaded, job.signature, threads, built.meta.get("tensor_maps"))
    kernel.cache[("gpu", job.signature, job.arch, device)] = launcher
    return launcher


def _build(kernel: Kernel, signature: tuple[ParamSpec, ...], arch: str, device: int) -> Launcher:
    start = time.perf_counter()
    job = build_job(kernel, signature, device)
    built = build(job)
    launcher = install(kernel, job, built, device)
    kernel.cache.setdefault("timings", []).append((built.source, time.perf_counter() - start))
    return launcher
