"""Backend: PTX to cubin, the one place it is assembled: `cubin`, the compiler's last stage
(nvJitLink through cuda.core, or the ptxas command), `assemble` with the resource log (ptxas
when installed, else nvJitLink with -v); and the per-kernel resources read from that log."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tilelang import settings
from tilelang.backend.occupancy import Occupancy
from tilelang.backend.targets import assembly_arch
from tilelang.errors import TileCompilerExecutionError


@dataclass(frozen=True)
class Resources:
    """What ptxas reports for one kernel, and (from CompiledKernel.resources()) the
    theoretical occupancy those figures allow."""

    registers: int
    spill_stores: int
    spill_loads: int
    stack_bytes: int
    shared_bytes: int
    occupancy: Occupancy | None = None
    # ptxas serialized the kernel's wgmma (its advisory C7514 or C7515): every product waits
    # for the one before, which costs much of the tensor cores' throughput
    wgmma_serialized: bool = False
    # ptxas added waits for wgmma before registers they write are read (its advisory C7517):
    # the kernel is correct, but a product the code meant to overlap with other work is not
    wgmma_waits_added: bool = False

    @property
    def blocks_per_sm(self) -> int | None:
        return None if self.occupancy is None else self.occupancy.blocks_per_sm

    @property
    def warps_per_sm(self) -> int | None:
        return None if self.occupancy is None else self.occupancy.warps_per_sm

    @property
    def limited_by(self) -> str | None:
        return None if self.occupancy is None else self.occupancy.limited_by


ASSEMBLERS = settings.ASSEMBLERS


def cubin(ptx: str, arch: str, assembler: str = "auto") -> bytes | None:
    """The compiler's `cubin` stage: `ptx` assembled for `arch` by `assembler`: "ptxas" (the
    command, no GPU needed: forked compile workers), "nvjitlink" (cuda.core; its fallback,
    the driver's linker, needs CUDA), "auto" (the ptxas command where it is installed, else
    nvJitLink) or "none" (the caller loads the PTX, and the driver compiles it). None when
    no assembler works. The command compiles the PTX as a whole program; nvJitLink as a unit
    of a link, where ptxas allocates more registers (cuTile's layer norm: 62 a thread, 8
    blocks an SM, against the command's 38 and 12; 0.98 -> 1.11 of `F.layer_norm`, H200).
    A kernel that needs a whole program (`needs_whole_program`) never goes to nvJitLink unless
    TILELANG_ASSEMBLER says so: the ptxas command assembles it, else the driver does."""
    chosen = settings.assembler()  # TILELANG_ASSEMBLER: the user's choice, over the caller's
    if chosen != "auto":
        assembler = chosen
    if assembler == "none":
        return None
    if assembler in ("auto", "nvjitlink") and chosen == "auto" and needs_whole_program(ptx):
        assembler = "ptxas"  # without the command: None, and the driver compiles it at load
    if assembler in ("auto", "ptxas") and shutil.which("ptxas"):
        try:
            return assemble(ptx, arch)[0]
        except TileCompilerExecutionError:
            if assembler == "ptxas":
                return None
    return to_cubin(ptx, arch) if assembler in ("auto", "nvjitlink") else None


def needs_whole_program(ptx: str) -> bool:
    """Whether `ptx` must be assembled as a whole program: nvJitLink assembles its input as
    one unit of a link, where ptxas ignores `setmaxnreg` "to maintain compatibility across
    compilation units" (its advisory C7504). A warp-specialized kernel's consumers then keep
    the launch's register share, and ptxas serializes their wgmma for want of registers
    (C7512): cuTile's fmha ran 0.8 as fast so (H200, same run). The ptxas command and the
    driver's own compilation of PTX at load honour it."""
    return "setmaxnreg" in ptx


def to_cubin(ptx: str, arch: str) -> bytes | None:
    """PTX to cubin through cuda.core (nvJitLink); None if that is unavailable here."""
    from tilelang.cuda_compat import Program, ProgramOptions

    arch = assembly_arch(ptx, arch)  # sm_90a for PTX that uses wgmma
    try:
        code = Program(ptx, "ptx", options=ProgramOptions(arch=arch)).compile("cubin")
        return bytes(code.code)
    except Exception:
        return None


def assemble(ptx: str, arch: str) -> tuple[bytes, str]:
    """(cubin, assembler log) for `ptx`; the log has the `-v` resource lines. The last few
    are remembered: the occupancy step, the cubin stage and `resources()` assemble the same
    PTX one after another."""
    return _assembled(ptx, assembly_arch(ptx, arch), shutil.which("ptxas") is not None)


@functools.lru_cache(maxsize=8)
def _assembled(ptx: str, arch: str, command: bool) -> tuple[bytes, str]:
    return _with_ptxas(ptx, arch) if command else _with_nvjitlink(ptx, arch)


def _with_ptxas(ptx: str, arch: str) -> tuple[bytes, str]:
    with tempfile.TemporaryDirectory(prefix="tilelang-ptxas-") as d:
        src, out = Path(d) / "kernel.ptx", Path(d) / "kernel.cubin"
        src.write_text(ptx)
        run = subprocess.run(["ptxas", f"-arch={arch}", "-v", str(src), "-o", str(out)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise TileCompilerExecutionError(
                f"internal compiler error: ptxas rejected the generated PTX:\n{run.stderr[-2000:]}"
            )
        return out.read_bytes(), run.stderr + run.stdout


def _with_nvjitlink(ptx: str, arch: str) -> tuple[bytes, str]:
    from tilelang.cuda_compat import Program, ProgramOptions

    try:
        program = Program(ptx, "ptx", options=ProgramOptions(arch=arch, ptxas_options=["-v"]))
        code = program.compile("cubin")
    except Exception as e:
        raise TileCompilerExecutionError(f"internal compiler error: assembling PTX: {e}") from e
    log = getattr(program, "backend_log", None) or ""
    return bytes(code.code), log


_RESOURCE = re.compile(
    r"Compiling entry function '(?P<name>[^']+)'.*?"
    r"(?P<stack>\d+) bytes stack frame, (?P<st>\d+) bytes spill stores, "
    r"(?P<ld>\d+) bytes spill loads.*?Used (?P<regs>\d+) registers(?P<rest>[^\n]*)",
    re.S,
)


def resources(log: str) -> dict[str, Resources]:
    """Per kernel name: registers, spills, stack and shared memory, from a `-v` log."""
    found = {}
    serialized = set(_SERIALIZED.findall(log))
    waited = set(_WAITS_ADDED.findall(log))
    for m in _RESOURCE.finditer(log):
        smem = re.search(r"(\d+) bytes smem", m.group("rest"))
        found[m.group("name")] = Resources(
            int(m.group("regs")), int(m.group("st")), int(m.group("ld")),
            int(m.group("stack")), int(smem.group(1)) if smem else 0,
            wgmma_serialized=m.group("name") in serialized,
            wgmma_waits_added=m.group("name") in waited,
        )
    return found


_SERIALIZED = re.compile(r"\(C751\d\)[^\n]*wgmma[^\n]*serialized[^\n]*function '([^']+)'")
_WAITS_ADDED = re.compile(r"\(C7517\)[^\n]*warpgroup.wait is injected[^\n]*function '([^']+)'")
