"""Compilation: `export_kernel`, a kernel compiled ahead of time for a list of signatures into
one cubin (or PTX) file, one entry point per signature, named by its symbol."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from tilelang import settings
from tilelang.backend.targets import MAX_SHARED_PER_BLOCK
from tilelang.compilation.ptx_module import check_symbol, join_modules, rename_entry
from tilelang.compilation.signature import KernelSignature, mangle_kernel_name
from tilelang.compilation.specs import signature_specs
from tilelang.errors import (
    TileArgumentValueError,
    TileError,
    TileUnsupportedFeatureError,
    TileValueError,
)
from tilelang.tracebacks import hide_internal_frames
from tilelang.version import __version__

if TYPE_CHECKING:
    from tilelang.interface.kernel import Kernel

FORMATS = ("cubin", "ptx", "tileir_bytecode")
DESCRIPTION_FORMAT = "tilelang-compilation/1"
DEFAULT_ARCH = "sm_90"


@dataclass(frozen=True)
class Entry:
    """One compiled signature: its symbol, PTX (entry renamed) and JSON description."""

    symbol: str
    ptx: str
    description: dict[str, Any]


def export_kernel(kernel: Kernel | Callable[..., Any],
                  signatures: Sequence[KernelSignature] | KernelSignature,
                  output_file: IO[bytes] | str | bytes | os.PathLike[Any], *,
                  gpu_code: str | None = None, output_format: str = "cubin",
                  bytecode_version: str | None = None,
                  description_file: IO[str] | str | os.PathLike[Any] | None = None
                  ) -> dict[str, Any]:
    """Compile `kernel` for each of `signatures` and write them, one entry point each (named
    by the signature's symbol, else its mangled name), to `output_file` (a path, or a binary
    file object such as `io.BytesIO`).

    `output_format`: "cubin" (assembled for `gpu_code`, e.g. "sm_90", which it needs), or
    "ptx" (the PTX text, which the driver compiles when it loads it). cuTile's
    "tileir_bytecode" writes the PTX too: tilelang has no TileIR. `bytecode_version` is
    checked ("13.1") and otherwise unused. Returns the description of the entries (launch
    block, dynamic shared memory, parameters), also written as JSON to `description_file`
    when given. The parameters follow tilelang's kernel ABI, not cuTile's (docs/compilation.md).
    """
    try:
        return _export(kernel, signatures, output_file, gpu_code, output_format,
                       bytecode_version, description_file)
    except TileError as e:
        if not hide_internal_frames(e):
            raise e from None
        raise


def _export(kernel: Kernel | Callable[..., Any],
            signatures: Sequence[KernelSignature] | KernelSignature,
            output_file: IO[bytes] | str | bytes | os.PathLike[Any], gpu_code: str | None,
            output_format: str, bytecode_version: str | None,
            description_file: IO[str] | str | os.PathLike[Any] | None) -> dict[str, Any]:
    from tilelang.backend.assemble import assemble, resources
    from tilelang.backend.targets import check_arch
    from tilelang.interface.kernel import as_kernel

    k = as_kernel(kernel)
    arch = _arch(gpu_code, output_format, bytecode_version)
    check_arch(arch)
    signatures = _signatures(signatures)
    entries = [_compile(k, s, arch) for s in signatures]
    _distinct([e.symbol for e in entries])
    ptx = join_modules([e.ptx for e in entries])
    kernels = [e.description for e in entries]
    description = {"format": DESCRIPTION_FORMAT, "tilelang_version": __version__,
                   "kernel": k.name, "arch": arch, "output_format": output_format,
                   "kernels": kernels}
    if output_format == "cubin":
        data, log = assemble(ptx, arch)
        found = resources(log)
        for entry in kernels:
            r = found.get(entry["entry"])
            entry["resources"] = None if r is None else {
                "registers": r.registers, "spill_stores": r.spill_stores,
                "spill_loads": r.spill_loads, "stack_bytes": r.stack_bytes,
                "static_shared_bytes": r.shared_bytes}
    else:
        data = ptx.encode()
    _write(output_file, data, "wb")
    if description_file is not None:
        _write(description_file, json.dumps(description, indent=2) + "\n", "w")
    return description


def _arch(gpu_code: str | None, output_format: str, bytecode_version: str | None) -> str:
    if output_format not in FORMATS:
        raise TileArgumentValueError(f"Unknown output format '{output_format}'",
                                     hint=f"output_format is one of {', '.join(FORMATS)}")
    if bytecode_version is not None and not (
            isinstance(bytecode_version, str) and re.fullmatch(r"\d+\.\d+", bytecode_version)):
        raise TileArgumentValueError(
            f"bytecode_version must be a string 'major.minor', got {bytecode_version!r}")
    if gpu_code is None and output_format == "cubin":
        raise TileArgumentValueError(
            f"gpu_code is required when output_format is '{output_format}'.",
            hint="pass gpu_code='sm_90' (or the GPU's architecture)")
    return gpu_code or settings.arch_override() or DEFAULT_ARCH


def _signatures(signatures: Sequence[KernelSignature] | KernelSignature) -> list[KernelSignature]:
    if isinstance(signatures, KernelSignature):
        signatures = [signatures]
    found = list(signatures)
    if not found:
        raise TileArgumentValueError("export_kernel needs at least one signature")
    for s in found:
        if not isinstance(s, KernelSignature):
            raise TileArgumentValueError(
                f"expected KernelSignature objects, got {type(s).__name__}")
    return found


def _distinct(symbols: list[str]) -> None:
    for i, s in enumerate(symbols):
        if s in symbols[:i]:
            raise TileArgumentValueError(
                f"two signatures are exported under one symbol {s}",
                hint="give them different symbols (or leave symbol=None)")


def _compile(k: Kernel, signature: KernelSignature, arch: str) -> Entry:
    """Compile one signature as a launch would (no TMA: tensor maps are built by tilelang's
    runtime, which a caller of the file lacks)."""
    from tilelang.compiler import CompileOptions, compile_signature
    from tilelang.export.abi import parameter_block
    from tilelang.export.describe import describe

    specs = signature_specs(k, signature)
    symbol = check_symbol(signature.symbol or mangle_kernel_name(k.name, signature))
    hints = k.options.for_arch(arch)
    compiled = compile_signature(k.fn, specs, CompileOptions(
        hints.num_warps, arch, occupancy=hints.occupancy, tma=False))
    num_warps = compiled.options.num_warps
    assert num_warps is not None, "compile_signature settles the number of warps"
    ptx = compiled.ptx or ""
    shared = int(compiled.metadata.get("shared_bytes", 0))
    if shared > MAX_SHARED_PER_BLOCK[arch]:
        raise TileUnsupportedFeatureError(
            f"kernel {symbol} needs {shared} bytes of shared memory; a block on {arch} can "
            f"have at most {MAX_SHARED_PER_BLOCK[arch]}",
            hint="use smaller tiles where the layout changes or a reduction crosses warps")
    block = parameter_block(compiled.param_names, specs, ptx, compiled.name)
    full = describe(name=symbol, kernel=k.name, entry=symbol, arch=arch, ptx=ptx,
                    num_warps=num_warps, shared=shared, names=compiled.param_names,
                    signature=specs, block=block, files={}, resources=None, version="")
    full["launch"]["block"] = [compiled.block_threads, 1, 1]
    keep = ("entry", "ptx_target", "launch", "arguments", "leaves", "parameters",
            "parameter_buffer_bytes")
    description = {"symbol": symbol, "signature": repr(signature)} | \
        {key: full[key] for key in keep}
    return Entry(symbol, rename_entry(ptx, compiled.name, symbol), description)


def _write(target: Any, data: bytes | str, mode: str) -> None:
    if isinstance(target, str | bytes | os.PathLike):
        try:
            with open(target, mode) as f:
                f.write(data)
        except OSError as e:
            raise TileValueError(f"cannot write {os.fsdecode(target)}: {e.strerror or e}") \
                from None
    else:
        target.write(data)
