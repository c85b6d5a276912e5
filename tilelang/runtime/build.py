"""Runtime: a specialization's binary on a device: from the kernel's memory, from the disk cache,
or compiled now by the compiler (compile_job.py; the compiler is imported only then); loaded,
and wrapped in a Launcher. The runtime loads what the compiler produced: it neither reads the
kernel's source nor assembles PTX."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tilelang import compile_job, settings
from tilelang.compile_job import Artifact, CompileJob
from tilelang.interface.kernel import Kernel
from tilelang.interface.specs import ParamSpec
from tilelang.runtime import binary, disk_cache
from tilelang.runtime.launcher import Launcher
from tilelang.runtime.state import LaunchKey, state_of


def specialization(kernel: Kernel, signature: tuple[ParamSpec, ...], device: int) -> Launcher:
    """The launcher of a signature on a device: from memory, from the disk cache, or compiled
    now."""
    arch = settings.arch_override() or binary.device_arch(device)
    key = memory_key(signature, arch, device)
    launchers = state_of(kernel).launchers
    launcher = launchers.get(key)
    if launcher is None:
        with kernel.lock:  # threads launching it cold at once build it once
            launcher = launchers.get(key)
            if launcher is None:
                launcher = _build(kernel, signature, device)
    return launcher


def memory_key(signature: tuple[ParamSpec, ...], arch: str, device: int) -> LaunchKey:
    """A loaded specialization's key in the runtime's record of the kernel."""
    return (signature, arch, device, *settings.codegen_switches())


@dataclass(frozen=True)
class BuildJob:
    """A compile job and the disk-cache key of its artifact; it pickles (to run in a worker
    process) when the kernel's function can be imported by name."""

    job: CompileJob
    key: str  # the disk cache key

    @property
    def signature(self) -> tuple[ParamSpec, ...]:
        return self.job.signature

    @property
    def arch(self) -> str:
        return self.job.arch


@dataclass
class Built:
    meta: dict[str, Any]
    ptx: str | None  # None: served from the disk cache with a cubin, the PTX left unread
    cubin: bytes | None
    source: str  # "disk" or "compiled"


def build_job(kernel: Kernel, signature: tuple[ParamSpec, ...], device: int) -> BuildJob:
    arch = settings.arch_override() or binary.device_arch(device)
    hints = kernel.options.for_arch(arch)  # ByTarget hints: their values for this arch
    job = compile_job.describe(kernel.fn, kernel.name, signature, arch,
                               binary.device_arch(device), hints.num_warps, hints.occupancy)
    return BuildJob(job, disk_cache.cache_key(*job.identity()))


def build(job: BuildJob, assembler: str = "auto") -> Built:
    """PTX and cubin of a job: from the disk cache, or compiled now (and stored there).

    `assembler` (backend/assemble.py's ASSEMBLERS) makes the cubin; compile workers pass one
    that needs no GPU, or "none", leaving the cubin to `install`."""
    cached = disk_cache.load(job.key)
    if cached is not None:
        meta, ptx, cubin = cached
        return Built(meta, ptx, cubin, "disk")
    artifact: Artifact = compile_job.run(job.job, assembler)
    disk_cache.store(job.key, artifact.meta, artifact.ptx, artifact.cubin)
    return Built(artifact.meta, artifact.ptx, artifact.cubin, "compiled")


def install(kernel: Kernel, job: BuildJob, built: Built, device: int) -> Launcher:
    """Load a built specialization on the device and remember it in the runtime's record."""
    if built.cubin is None:  # a worker could not assemble it: the compiler's last stage, here
        assert built.ptx is not None, "a specialization comes with its PTX or its cubin"
        built.cubin = compile_job.assemble(job.job, built.ptx)
        if built.cubin is not None:
            disk_cache.store(job.key, built.meta, built.ptx, built.cubin)
    shared = int(built.meta.get("shared_bytes", 0))
    loaded = binary.load(kernel.name, built.ptx, built.cubin, device, shared)
    threads = built.meta.get("block_threads") or \
        32 * (job.job.num_warps or built.meta["num_warps"])
    launcher = Launcher(loaded, job.signature, threads, built.meta.get("tensor_maps"))
    state_of(kernel).launchers[memory_key(job.signature, job.arch, device)] = launcher
    return launcher


def is_installed(kernel: Kernel, job: BuildJob, device: int) -> bool:
    return memory_key(job.signature, job.arch, device) in state_of(kernel).launchers


def _build(kernel: Kernel, signature: tuple[ParamSpec, ...], device: int) -> Launcher:
    start = time.perf_counter()
    job = build_job(kernel, signature, device)
    built = build(job)
    launcher = install(kernel, job, built, device)
    state_of(kernel).timings.append((built.source, time.perf_counter() - start))
    return launcher
