"""Helpers of the export tests: find a C compiler, compile C programs against an exported
header, read a cubin's ELF header. Imported by tests/export and tests/gpu/test_export_gpu.py."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

CUDA_MIN = Path(__file__).parent / "cuda_min"  # a minimal cuda.h (real ABI, few declarations)
EM_CUDA = 190


def c_compiler() -> str | None:
    for candidate in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def cxx_compiler() -> str | None:
    for candidate in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def compile_c(compiler: str, source: Path, includes: list[Path], *flags: str,
              output: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Compile `source` (to `output`, or syntax only); the result, with the compiler's output."""
    command = [compiler, *flags, *(f"-I{d}" for d in includes), str(source)]
    command += ["-o", str(output)] if output else ["-fsyntax-only"]
    return subprocess.run(command, capture_output=True, text=True)


def elf_sm(cubin: bytes) -> tuple[int, int]:
    """(e_machine, SM number) of a cubin: EI_ABIVERSION 8 (CUDA 13) keeps the SM in bits 8-15 of
    e_flags, older cubins in bits 0-7."""
    assert cubin[:4] == b"\x7fELF", "not an ELF file"
    assert cubin[4] == 2 and cubin[5] == 1, "not a 64-bit little-endian ELF file"
    machine = struct.unpack_from("<H", cubin, 18)[0]
    flags = struct.unpack_from("<I", cubin, 48)[0]
    return machine, (flags >> 8) & 0xFF if cubin[8] >= 8 else flags & 0xFF


def sm_number(arch: str) -> int:
    return int(re.fullmatch(r"sm_(\d+)a?", arch).group(1))
