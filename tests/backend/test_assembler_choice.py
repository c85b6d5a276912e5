"""Which assembler makes the cubin (backend/assemble.py): a warp-specialized kernel's PTX
(setmaxnreg) never goes to nvJitLink, which assembles its input as one unit of a link and so
ignores setmaxnreg (ptxas's advisory C7504), serializing the consumers' wgmma (C7512): the
ptxas command assembles it, else the driver compiles the PTX at load. Other kernels too go to
the command where it is installed (a whole program: fewer registers), else to nvJitLink.
TILELANG_ASSEMBLER overrides the choice."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.backend import assemble
from tilelang.errors import TileValueError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import attention
import vector_add

BF16 = ml_dtypes.bfloat16


def attention_ptx() -> str:
    q = np.zeros((1, 2, 300, 128), BF16)
    kernel = attention.flash_attention.replace_hints(num_warps=8)
    return ct.compile(kernel, (q, q, q, q, 0.1, False, 128, 128, 128), arch="sm_90").ptx


def vector_add_ptx() -> str:
    x = np.zeros(1000, np.float32)
    return ct.compile(vector_add.vector_add, (x, x, x, 256), arch="sm_90").ptx


def test_only_warp_specialized_kernels_need_a_whole_program():
    assert assemble.needs_whole_program(attention_ptx())
    assert not assemble.needs_whole_program(vector_add_ptx())


def forbid_nvjitlink(monkeypatch):
    def refuse(ptx, arch):
        raise AssertionError("nvJitLink was asked to assemble a setmaxnreg kernel")

    monkeypatch.setattr(assemble, "to_cubin", refuse)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs the ptxas command")
@pytest.mark.parametrize("asked", ["auto", "nvjitlink"])
def test_setmaxnreg_goes_to_ptxas(monkeypatch, asked):
    """"nvjitlink" is what compile workers ask for when nvJitLink is installed."""
    monkeypatch.delenv("TILELANG_ASSEMBLER", raising=False)
    forbid_nvjitlink(monkeypatch)
    code = assemble.cubin(attention_ptx(), "sm_90", asked)
    assert code is not None and code[:4] == b"\x7fELF"


def test_without_ptxas_the_driver_compiles_it(monkeypatch):
    monkeypatch.delenv("TILELANG_ASSEMBLER", raising=False)
    forbid_nvjitlink(monkeypatch)
    monkeypatch.setattr(assemble.shutil, "which", lambda name: None)
    assert assemble.cubin(attention_ptx(), "sm_90", "auto") is None


def test_other_kernels_keep_the_callers_assembler(monkeypatch):
    monkeypatch.delenv("TILELANG_ASSEMBLER", raising=False)
    asked = []
    monkeypatch.setattr(assemble, "to_cubin", lambda ptx, arch: asked.append(arch) or b"x")
    assert assemble.cubin(vector_add_ptx(), "sm_90", "nvjitlink") == b"x" and asked


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs the ptxas command")
def test_auto_prefers_the_ptxas_command(monkeypatch):
    """A whole program: nvJitLink, a unit of a link, gave cuTile's layer norm 62 registers
    where the command gives 38 (H200: 8 against 12 blocks an SM, 0.98 -> 1.11 of torch)."""
    monkeypatch.delenv("TILELANG_ASSEMBLER", raising=False)
    monkeypatch.setattr(assemble, "to_cubin", lambda ptx, arch: b"nvjitlink")
    code = assemble.cubin(vector_add_ptx(), "sm_90", "auto")
    assert code is not None and code[:4] == b"\x7fELF"


def test_auto_without_the_command_takes_nvjitlink(monkeypatch):
    monkeypatch.delenv("TILELANG_ASSEMBLER", raising=False)
    monkeypatch.setattr(assemble.shutil, "which", lambda name: None)
    monkeypatch.setattr(assemble, "to_cubin", lambda ptx, arch: b"nvjitlink")
    assert assemble.cubin(vector_add_ptx(), "sm_90", "auto") == b"nvjitlink"


def test_the_environment_overrides_the_caller(monkeypatch):
    monkeypatch.setenv("TILELANG_ASSEMBLER", "none")
    monkeypatch.setattr(assemble, "to_cubin", lambda ptx, arch: b"x")
    assert assemble.cubin(vector_add_ptx(), "sm_90", "nvjitlink") is None
    monkeypatch.setenv("TILELANG_ASSEMBLER", "nvjitlink")  # the user's word, setmaxnreg or not
    assert assemble.cubin(attention_ptx(), "sm_90", "auto") == b"x"


def test_an_unknown_assembler_is_named(monkeypatch):
    monkeypatch.setenv("TILELANG_ASSEMBLER", "nvcc")
    with pytest.raises(TileValueError, match=r"TILELANG_ASSEMBLER must be one of .*'nvcc'"):
        assemble.cubin(vector_add_ptx(), "sm_90")


def test_every_serializing_advisory_is_read():
    """C7512 is what nvJitLink reported for cuTile's fmha; C7514 and C7515 the others seen."""
    log = "\n".join([
        "ptxas info    : Compiling entry function 'k' for 'sm_90a'",
        "ptxas info    : Function properties for k",
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
        "ptxas info    : Used 168 registers, used 2 barriers",
        "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are "
        "serialized due to insufficient register resources for the function 'k'",
    ])
    assert assemble.resources(log)["k"].wgmma_serialized


def test_waits_ptxas_adds_are_read():
    """C7517: ptxas waits for wgmma before a read it cannot prove safe (correct, not
    overlapped); it does not serialize the kernel."""
    log = "\n".join([
        "ptxas info    : Compiling entry function 'k' for 'sm_90a'",
        "ptxas info    : (C7517) warpgroup.wait is injected in around line 877 by compiler to "
        "allow use of registers defined by GMMA in function 'k'",
        "ptxas info    : Function properties for k",
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
        "ptxas info    : Used 168 registers, used 2 barriers",
    ])
    found = assemble.resources(log)["k"]
    assert found.wgmma_waits_added and not found.wgmma_serialized


def test_explain_warns_when_nvjitlink_is_forced_on_a_warp_specialized_kernel(monkeypatch):
    q = np.zeros((1, 2, 300, 128), BF16)
    kernel = attention.flash_attention.replace_hints(num_warps=8)
    kernel_args = (q, q, q, q, 0.1, False, 128, 128, 128)
    monkeypatch.setenv("TILELANG_ASSEMBLER", "nvjitlink")
    forced = str(ct.explain(kernel, kernel_args, arch="sm_90"))
    assert "TILELANG_ASSEMBLER=nvjitlink" in forced and "setmaxnreg" in forced
    monkeypatch.delenv("TILELANG_ASSEMBLER")
    assert "TILELANG_ASSEMBLER=nvjitlink" not in str(ct.explain(kernel, kernel_args, arch="sm_90"))
