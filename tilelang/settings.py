"""Knobs: the only module that reads environment variables (read at use, so tests can set them)."""

from __future__ import annotations

import math
import os
from pathlib import Path


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


_ENVIRON_BYTES = getattr(os.environ, "_data", None)  # CPython's encoded store behind os.environ


def interpret() -> bool:
    """TILELANG_INTERPRET=1: run every launch on the CPU interpreter.

    Read on every launch, so it is the hot path's one environment read: looked up in
    os.environ's own byte store (40 ns) rather than through the mapping (1.5 µs).
    """
    if isinstance(_ENVIRON_BYTES, dict):
        raw = _ENVIRON_BYTES.get(b"TILELANG_INTERPRET")
        return raw is not None and (raw == b"1" or raw.strip().lower() in _TRUE)
    return _flag("TILELANG_INTERPRET")


_TRUE = (b"1", b"true", b"yes", b"on")


def dump_dir() -> Path | None:
    """TILELANG_DUMP_DIR=d: write every stage of every compilation to d/<kernel>/<nn>-<stage>."""
    value = os.environ.get("TILELANG_DUMP_DIR")
    return Path(value) if value else None


def frontend_debug() -> bool:
    """TILELANG_FRONTEND_DEBUG=1: let internal front-end exceptions through unwrapped."""
    return _flag("TILELANG_FRONTEND_DEBUG")


def explain_enabled() -> bool:
    """TILELANG_EXPLAIN=1: GPU compilations warn about products and loops off the fast path."""
    return _flag("TILELANG_EXPLAIN")


def print_ir_after() -> str | None:
    """TILELANG_PRINT_IR_AFTER=<pass name>|all: print the module to stderr after those passes."""
    return os.environ.get("TILELANG_PRINT_IR_AFTER") or None


def cache_dir() -> Path:
    """TILELANG_CACHE_DIR (default ~/.cache/tilelang): the on-disk kernel cache."""
    value = os.environ.get("TILELANG_CACHE_DIR")
    return Path(value) if value else Path.home() / ".cache" / "tilelang"


def disk_cache_enabled() -> bool:
    """TILELANG_DISABLE_DISK_CACHE=1 turns the on-disk kernel cache off."""
    return not _flag("TILELANG_DISABLE_DISK_CACHE")


def arch_override() -> str | None:
    """TILELANG_ARCH=sm_90: compile for this architecture instead of the device's."""
    return os.environ.get("TILELANG_ARCH") or None


def wgmma_enabled() -> bool:
    """TILELANG_WGMMA=0: matrix-product loops on sm_90 use mma.sync instead of wgmma."""
    return os.environ.get("TILELANG_WGMMA", "1").strip().lower() not in ("0", "false", "no", "off")


def tma_enabled() -> bool:
    """TILELANG_TMA=0 stages matrix-product loops with cp.async instead of TMA on sm_90, and
    stores no tile with TMA."""
    return os.environ.get("TILELANG_TMA", "1").strip().lower() not in ("0", "false", "no", "off")


def warp_specialize_enabled() -> bool:
    """TILELANG_WARP_SPECIALIZE=0: thread 0 of the consumer warps fills a kernel's TMA rings
    instead of a producer warpgroup of its own (simt/warp_specialize.py)."""
    return os.environ.get("TILELANG_WARP_SPECIALIZE", "1").strip().lower() not in (
        "0", "false", "no", "off")


def register_floor_enabled() -> bool:
    """TILELANG_REGISTER_FLOOR=0: a kernel that ptxas left spilling at fewer registers than
    one block may have is not assembled again asking for one block
    (backend/occupancy_step.py)."""
    return os.environ.get("TILELANG_REGISTER_FLOOR", "1").strip().lower() not in (
        "0", "false", "no", "off")


def occupancy_step_enabled() -> bool:
    """TILELANG_OCCUPANCY_STEP=0: kernels held back from one more block an SM by a few
    registers are not assembled again with the registers capped (backend/occupancy_step.py)."""
    return os.environ.get("TILELANG_OCCUPANCY_STEP", "1").strip().lower() not in (
        "0", "false", "no", "off")


def ping_pong_enabled() -> bool:
    """TILELANG_PING_PONG=1: the two consumer warpgroups of a warp-specialized staged loop
    take turns at the tensor cores (simt/turns.py). Off by default: measured within the
    machine's spread of off (docs/compiler.md)."""
    return os.environ.get("TILELANG_PING_PONG", "0").strip().lower() in (
        "1", "true", "yes", "on")


def pipeline_products_enabled() -> bool:
    """TILELANG_PIPELINE_PRODUCTS=1: staged wgmma loops compute their first product one
    iteration early (passes/pipeline_products.py). Off by default: on the H100 it gained 7% on
    128x64 d=128 attention but lost 4-5% with causal masks, and the best tiles (128x128) leave
    no registers for it (benchmarks/README.md)."""
    return os.environ.get("TILELANG_PIPELINE_PRODUCTS", "0").strip().lower() in (
        "1", "true", "yes", "on")


def delay_products_enabled() -> bool:
    """TILELANG_DELAY_PRODUCTS=1 issues a staged loop's accumulating last product one
    iteration late (passes/delay_products.py; off by default: not faster on the H100)."""
    return os.environ.get("TILELANG_DELAY_PRODUCTS", "0").strip().lower() in (
        "1", "true", "yes", "on")


ASSEMBLERS = ("auto", "nvjitlink", "ptxas", "none")  # backend/assemble.py's `cubin`


def assembler() -> str:
    """TILELANG_ASSEMBLER: what assembles PTX into the cubin (one of ASSEMBLERS; none: the
    driver, from the PTX, at load), over what the caller asks for."""
    value = os.environ.get("TILELANG_ASSEMBLER", "").strip().lower() or "auto"
    if value not in ASSEMBLERS:
        from tilelang.errors import TileValueError

        raise TileValueError(f"TILELANG_ASSEMBLER must be one of {', '.join(ASSEMBLERS)}, "
                             f"got {value!r}")
    return value


def fp_contract_enabled() -> bool:
    """TILELANG_FP_CONTRACT=1: LLVM may fuse a float multiply and an add or subtract of its
    result into one fma, rounded once (as nvcc, Triton and cuTile do). Off by default: it took
    bf16 layer norm over rows of 16384 from 128 to 203 registers (one block per SM instead of
    two), and saved 64 of ~500 instructions per key block of attention."""
    return os.environ.get("TILELANG_FP_CONTRACT", "0").strip().lower() in (
        "1", "true", "yes", "on")


def fp8_fast_accumulation() -> bool:
    """TILELANG_FP8_ACCUMULATION=fast: wgmma accumulates a whole K loop of 8-bit products
    with its own additions, which keep about 14 bits (cuBLAS's `use_fast_accum=True`,
    Triton's default on Hopper). The default, `precise`, adds each K tile's products to a
    float32 accumulator (cuBLAS's default; docs/language.md, "fp8 accumulation")."""
    value = os.environ.get("TILELANG_FP8_ACCUMULATION", "").strip().lower() or "precise"
    if value not in ("precise", "fast"):
        from tilelang.errors import TileValueError

        raise TileValueError(f"TILELANG_FP8_ACCUMULATION must be precise or fast, got {value!r}")
    return value == "fast"


def llvm_opt_level() -> int:
    """TILELANG_LLVM_OPT=0-3 (default 3): the level of LLVM's optimization pipeline before PTX
    codegen (1 gave the same or nearly the same PTX for the samples, ~10-25% faster: see
    benchmarks/README.md)."""
    value = os.environ.get("TILELANG_LLVM_OPT", "").strip() or "3"
    if value not in ("0", "1", "2", "3"):
        from tilelang.errors import TileValueError

        raise TileValueError(f"TILELANG_LLVM_OPT must be 0, 1, 2 or 3, got {value!r}")
    return int(value)


def row_major_views_enabled() -> bool:
    """A matrix-product operand loaded from a column-major array (PyTorch's `w.t()`) is read
    through a view with contiguous rows (passes/row_major_views.py), which the staged paths copy.
    TILELANG_ROW_MAJOR_VIEWS=0 leaves such operands to the register paths."""
    value = os.environ.get("TILELANG_ROW_MAJOR_VIEWS", "1").strip().lower()
    return value not in ("0", "false", "no", "off")


def codegen_switches() -> tuple[str, ...]:
    """The settings above that change generated code (cache keys include them)."""
    found = () if wgmma_enabled() else ("wgmma=off",)
    if not tma_enabled():
        found = (*found, "tma=off")
    if not warp_specialize_enabled():
        found = (*found, "warp-specialize=off")
    if ping_pong_enabled():
        found = (*found, "ping-pong=on")
    if not occupancy_step_enabled():
        found = (*found, "occupancy-step=off")
    if not register_floor_enabled():
        found = (*found, "register-floor=off")
    if pipeline_products_enabled():
        found = (*found, "pipeline-products=on")
    if delay_products_enabled():
        found = (*found, "delay-products=on")
    if fp_contract_enabled():
        found = (*found, "fp-contract=on")
    if fp8_fast_accumulation():
        found = (*found, "fp8-accumulation=fast")
    if not row_major_views_enabled():
        found = (*found, "row-major-views=off")
    chosen = assembler()
    if chosen != "auto":
        found = (*found, f"assembler={chosen}")
    level = llvm_opt_level()
    return found if level == 3 else (*found, f"llvm-O{level}")


def native_launch_enabled() -> bool:
    """TILELANG_NO_NATIVE_LAUNCH=1 keeps launches on the pure-Python path (no C launcher)."""
    return not _flag("TILELANG_NO_NATIVE_LAUNCH")


def autotune_enabled() -> bool:
    """TILELANG_AUTOTUNE=0: autotuned kernels use their first config, with no search."""
    return os.environ.get("TILELANG_AUTOTUNE", "1").strip().lower() not in ("0", "false", "no",
                                                                            "off")


def print_autotuning() -> bool:
    """TILELANG_PRINT_AUTOTUNING=1: print each autotuning search's timings and choice."""
    return _flag("TILELANG_PRINT_AUTOTUNING")


def compile_workers() -> int | None:
    """TILELANG_COMPILE_WORKERS=n: processes that compile autotuning candidates in parallel
    (0 or 1: compile in the calling process); unset: one per CPU, at most 16."""
    value = os.environ.get("TILELANG_COMPILE_WORKERS", "").strip()
    return int(value) if value else None


def compiler_timeout() -> float | None:
    """TILELANG_COMPILER_TIMEOUT_SEC=s (or cuTile's CUDA_TILE_COMPILER_TIMEOUT_SEC): the seconds
    a compilation may take unless `tilelang.compiler_timeout` says otherwise (tilelang/timeout.py);
    unset: no limit. Must be a positive number."""
    for name in ("TILELANG_COMPILER_TIMEOUT_SEC", "CUDA_TILE_COMPILER_TIMEOUT_SEC"):
        text = os.environ.get(name, "").strip()
        if text:
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not value > 0:
                from tilelang.errors import TileValueError

                raise TileValueError(f"{name} must be a positive number of seconds, got {text!r}")
            return value
    return None
