"""Export: compile one specialization ahead of time and write the files a C program needs."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tilelang import settings
from tilelang.backend.targets import MAX_SHARED_PER_BLOCK, check_arch
from tilelang.errors import TileError, TileUnsupportedFeatureError, TileValueError
from tilelang.export.abi import parameter_block
from tilelang.export.describe import describe
from tilelang.export.header import header_text
from tilelang.export.signature import export_signature
from tilelang.interface.exported import Exported
from tilelang.tracebacks import hide_internal_frames
from tilelang.version import __version__

if TYPE_CHECKING:
    from tilelang.interface.kernel import Kernel

DEFAULT_ARCH = "sm_90"  # without a GPU and without TILELANG_ARCH


def export(kernel: Kernel | Callable[..., Any], directory: str | os.PathLike[str],
           *signature: object, arch: str | None = None, name: str | None = None,
           cubin: bool = True) -> Exported:
    """Compile `kernel` for one signature and write `<name>.cubin`, `<name>.ptx`,
    `<name>.json` and `<name>.h` into `directory` (created if missing).

    `signature` has one entry per kernel parameter: `Array(dtype, ndim, ...)` or
    `Scalar(dtype)` for what the C program passes, a constant's value for a `Constant`
    parameter, or an example argument as a launch would take it (a NumPy array, a number).
    `arch` defaults to TILELANG_ARCH, else the current GPU's, else sm_90. `name` (default the
    kernel's) names the files and prefixes the C declarations. `cubin=False` skips assembling
    (the PTX is loaded the same way: the driver compiles it).

    Example:
        >>> from tilelang.export import Array
        >>> vector_add.export("build", Array(ct.float32, 1, align=16),
        ...                   Array(ct.float32, 1, align=16), Array(ct.float32, 1, align=16),
        ...                   1024, arch="sm_90")
    """
    try:
        return _export(kernel, Path(directory), signature, arch, name, cubin)
    except TileError as e:
        if not hide_internal_frames(e):
            raise e from None
        raise  # a bare raise adds no frame: the traceback ends at the user's call


def _export(kernel: Kernel | Callable[..., Any], directory: Path, entries: tuple[object, ...],
            arch: str | None, name: str | None, assemble: bool) -> Exported:
    from tilelang.compiler import CompileOptions, compile_signature
    from tilelang.interface.kernel import as_kernel

    k = as_kernel(kernel)
    name = _export_name(name or k.name)
    arch = arch or settings.arch_override() or _current_arch() or DEFAULT_ARCH
    check_arch(arch)
    signature = export_signature(k, entries)
    _make_writable(directory, name)  # before the compilation, which takes the time
    # tma=False: TMA's tensor maps are built by tilelang's runtime, which a C caller lacks
    hints = k.options.for_arch(arch)
    compiled = compile_signature(k.fn, signature, CompileOptions(
        hints.num_warps, arch, occupancy=hints.occupancy, tma=False))
    num_warps = compiled.options.num_warps
    assert num_warps is not None, "compile_signature settles the number of warps"
    shared = int(compiled.metadata.get("shared_bytes", 0))
    _check_shared(compiled.name, arch, shared)
    ptx = compiled.ptx or ""
    block = parameter_block(compiled.param_names, signature, ptx, compiled.name)
    resources = compiled.resources() if assemble else None  # assembles (ptxas or nvJitLink)
    files = {"cubin": f"{name}.cubin" if assemble else None, "ptx": f"{name}.ptx",
             "json": f"{name}.json", "header": f"{name}.h"}
    desc = describe(name=name, kernel=k.name, entry=compiled.name, arch=arch, ptx=ptx,
                    num_warps=num_warps, shared=shared, names=compiled.param_names,
                    signature=signature, block=block, files=files, resources=resources,
                    version=__version__)
    ptx_path, json_path, header_path = (directory / f"{name}{ext}"
                                        for ext in (".ptx", ".json", ".h"))
    # the PTX its cubin was assembled from (with `.minnctapersm` at an occupancy step)
    _write(ptx_path, compiled.metadata.get("assembled_ptx", ptx).encode())
    if assemble:
        _write(directory / f"{name}.cubin", compiled.metadata["cubin"])
    _write(json_path, (json.dumps(desc, indent=2) + "\n").encode())
    _write(header_path, header_text(desc).encode())
    return Exported(directory, header_path, json_path, ptx_path,
                    directory / f"{name}.cubin" if assemble else None, desc)


def _export_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise TileValueError(f"export name {name!r} is not a C identifier",
                             hint="pass name='...' (letters, digits and _)")
    return name


def _current_arch() -> str | None:
    """The current GPU's architecture, or None on a machine without one."""
    try:
        from tilelang.runtime import binary

        if not binary.gpu_count():
            return None
        return binary.device_arch(binary.current_ordinal())
    except Exception:  # no CUDA bindings or driver: not an error for an export
        return None


def _check_shared(entry: str, arch: str, shared: int) -> None:
    limit = MAX_SHARED_PER_BLOCK[arch]
    if shared > limit:
        raise TileUnsupportedFeatureError(
            f"kernel {entry} needs {shared} bytes of shared memory; a block on {arch} can have "
            f"at most {limit}",
            hint="use smaller tiles where the layout changes or a reduction crosses warps")


def _make_writable(directory: Path, name: str) -> None:
    """Create the directory and make sure files can be written there, before compiling."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=f".{name}-", delete=True):
            pass
    except OSError as e:
        raise TileValueError(f"cannot write the export to {directory}: {e.strerror or e}",
                             hint="pass a directory you can write to") from None


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as e:
        raise TileValueError(f"cannot write {path}: {e.strerror or e}") from None
