"""A kernel held back from one more block an SM by a few registers is assembled again with
`.minnctapersm` (backend/occupancy_step.py): which kernels qualify, the directive's place, and
a kernel compiled end to end (ptxas on this machine) whose capped code the runtime gets. And
the register floor: a kernel ptxas left spilling at 32 registers is assembled again asking
for one block an SM."""

from __future__ import annotations

import shutil

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.backend.occupancy import occupancy
from tilelang.backend.occupancy_step import next_step, registers_for, starved, with_blocks

PTX = ".visible .entry k(\n.param .u64 a\n)\n.reqntid 256, 1, 1\n{\nret;\n}\n"


@pytest.mark.parametrize(("blocks", "threads", "registers"),
                         [(2, 256, 128), (3, 128, 168), (4, 128, 128), (5, 128, 96),
                          (2, 384, 80), (1, 1024, 64)])
def test_registers_for_a_count_of_blocks(blocks, threads, registers):
    assert registers_for(blocks, threads) == registers
    assert occupancy("sm_90", threads, registers, 0).blocks_per_sm >= blocks
    assert occupancy("sm_90", threads, registers + 8, 0).blocks_per_sm < blocks


def test_a_few_registers_over_the_step():
    """cuTile's MoE product: 8 warps at 134 registers, 83 KB of shared memory."""
    step = next_step(PTX, "sm_90", 256, 134, 83008)
    assert step is not None and (step.blocks, step.registers, step.before) == (2, 128, 134)


@pytest.mark.parametrize(("registers", "shared", "why"), [
    (150, 83008, "128 is more than an eighth below 150"),
    (134, 120_000, "two blocks' shared memory does not fit"),
    (120, 83008, "registers do not limit it"),
])
def test_kernels_left_as_they_are(registers, shared, why):
    assert next_step(PTX, "sm_90", 256, registers, shared) is None, why


@pytest.mark.parametrize("directive", [".minnctapersm 2", ".maxnreg 128", "setmaxnreg.inc",
                                       "mov.u32 %r1, %nctaid.x;"])
def test_a_kernel_that_says_what_it_wants_is_left_alone(directive):
    """Its own directives, warp specialization, or the grid's size read (a persistent kernel
    launches the blocks it walks its work with)."""
    ptx = PTX.replace(".reqntid 256, 1, 1", f".reqntid 256, 1, 1\n{directive}")
    assert next_step(ptx, "sm_90", 256, 134, 83008) is None


def test_the_directive_follows_the_block_size():
    stepped = with_blocks(PTX, 2)
    assert ".reqntid 256, 1, 1\n.minnctapersm 2\n{" in stepped


@ct.kernel
def k_loop(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        acc = ct.mma(ct.load(a, (i, k), (BM, BK)), ct.load(b, (k, j), (BK, BN)), acc)
    ct.store(c, (i, j), (acc * 0.5).astype(c.dtype))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs the ptxas command")
def test_a_kernel_assembled_at_the_next_step(monkeypatch):
    """sm_80's 128 x 128 K loop on 8 warps (about 200 registers, one block an SM): with the
    slack widened, it is assembled again for two blocks; its resources, its cubin and explain
    follow the capped code. Left alone with TILELANG_OCCUPANCY_STEP=0."""
    from tilelang.backend import occupancy_step

    monkeypatch.setattr(occupancy_step, "SLACK", 1)  # any cap
    monkeypatch.setattr(occupancy_step, "MAX_SPILL_BYTES", 1 << 20)
    x = np.zeros((512, 512), ml_dtypes.bfloat16)
    kernel = k_loop.replace_hints(num_warps=8)
    compiled = ct.compile(kernel, (x, x, x, 128, 128, 32), arch="sm_80")
    r = compiled.resources()
    step = compiled.metadata["occupancy_step"]
    assert step is not None and step.blocks == 2 and step.before > 128 >= r.registers
    assert r.occupancy.blocks_per_sm == 2
    assert ".minnctapersm 2" in compiled.metadata["assembled_ptx"]
    assert ".minnctapersm" not in compiled.ptx
    assert compiled.cubin is not None
    report = str(ct.explain(kernel, (x, x, x, 128, 128, 32), arch="sm_80"))
    assert f"registers capped at {r.registers} a thread (ptxas chose {step.before}) for 2 " \
        "blocks an SM" in report

    monkeypatch.setenv("TILELANG_OCCUPANCY_STEP", "0")
    plain = ct.compile(kernel, (x, x, x, 128, 128, 32), arch="sm_80")
    assert plain.resources().occupancy.blocks_per_sm == 1
    assert plain.metadata.get("occupancy_step") is None


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs the ptxas command")
def test_an_occupancy_hint_is_the_users_choice(monkeypatch):
    from tilelang.backend import occupancy_step

    monkeypatch.setattr(occupancy_step, "SLACK", 1)
    monkeypatch.setattr(occupancy_step, "MAX_SPILL_BYTES", 1 << 20)
    x = np.zeros((512, 512), ml_dtypes.bfloat16)
    compiled = ct.compile(k_loop.replace_hints(num_warps=8, occupancy=1), (x, x, x, 128, 128, 32),
                          arch="sm_80")
    assert compiled.resources().occupancy.blocks_per_sm == 1
    assert compiled.metadata.get("occupancy_step") is None


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs the ptxas command")
def test_no_spills_for_a_block_where_warps_are_plenty():
    """The RMS norm sample's column sums on sm_80 (6 blocks of 4 warps at 86 registers): 7
    blocks would spill; at 24 warps an SM the step must spill nothing, so it is not taken."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
    import torch_rms_norm

    n = 1000
    part, w = np.zeros((16, n), np.float32), np.zeros(n, ml_dtypes.bfloat16)
    compiled = ct.compile(torch_rms_norm.column_sums_kernel, (part, w, 32, 128), arch="sm_80",
                          num_warps=4)
    r = compiled.resources()
    assert compiled.metadata.get("occupancy_step") is None
    assert r.spill_stores == 0 and r.occupancy.warps_per_sm > 16


@pytest.mark.parametrize(("ptx", "threads", "registers", "spilled", "expected"), [
    (PTX, 256, 32, 100, True),
    (PTX, 256, 255, 100, False),  # it has all a thread may have
    (PTX, 256, 32, 0, False),  # no spills
    (PTX, 1024, 64, 100, False),  # one block of 1024 threads: 64 registers a thread at most
    (PTX.replace("{\n", ".minnctapersm 4\n{\n"), 256, 32, 100, False),  # it says
])
def test_which_kernels_ptxas_starved(ptx, threads, registers, spilled, expected):
    assert starved(ptx, threads, registers, spilled) is expected


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs the ptxas command")
def test_a_kernel_assembled_at_its_register_floor(monkeypatch):
    """A float32 128 x 128 K loop on 4 warps (mma.sync from registers: it spills even at 255
    a thread). ptxas 13.0 gives it 32 registers and spills about 15 KB a thread; asked for one
    block an SM, it takes 255 and spills about 2.5 KB. The resources, the cubin and explain
    follow the floored code; TILELANG_REGISTER_FLOOR=0 leaves it as ptxas chose."""
    x = np.zeros((256, 256), np.float32)
    kernel = k_loop.replace_hints(num_warps=4)
    args = (x, x, x, 128, 128, 32)
    monkeypatch.setenv("TILELANG_REGISTER_FLOOR", "0")
    plain = ct.compile(kernel, args, arch="sm_90").resources()
    assert plain.registers == 32 and plain.spill_stores > 8192
    monkeypatch.delenv("TILELANG_REGISTER_FLOOR")
    compiled = ct.compile(kernel, args, arch="sm_90")
    r, floor = compiled.resources(), compiled.metadata["register_floor"]
    assert r.registers > 128 and r.spill_stores < plain.spill_stores // 2
    assert (floor.registers, floor.spill_stores) == (plain.registers, plain.spill_stores)
    assert ".minnctapersm 1" in compiled.metadata["assembled_ptx"]
    assert compiled.cubin is not None
    report = str(ct.explain(kernel, args, arch="sm_90"))
    assert f"({r.registers} registers a thread; asked for one block an SM: ptxas had chosen " \
        f"32 and spilled {plain.spill_stores} bytes)" in report
