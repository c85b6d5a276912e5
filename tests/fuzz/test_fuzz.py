"""Differential fuzzing, CPU tier: a bounded run (reference, interpreter, compile to PTX), the
saved reproducers, and checks that the fuzzer itself can fail."""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import pytest

from tilelang.testing.fuzz import check, generate
from tilelang.testing.fuzz import reference as ref
from tilelang.testing.fuzz.__main__ import main
from tilelang.testing.fuzz.check import failures, kernel_of, kernel_source, tolerances
from tilelang.testing.fuzz.program import Array, Node, Output, Program
from tilelang.testing.fuzz.shrink import prune, shrink

SIDES = ("reference", "interpreter", "compile")
REGRESSIONS = sorted((Path(__file__).parent / "regressions").glob("*.json"))
CHUNK = 50


@pytest.mark.parametrize("first", [  # the quick run: the first chunk; the full run: all five
    pytest.param(first, marks=[pytest.mark.slow] if first else [])
    for first in range(0, 250, CHUNK)])
def test_bounded_run_has_no_mismatch(first: int) -> None:
    failing = failures(range(first, first + CHUNK), SIDES)
    assert not failing, "\n".join(f"seed {s}: {m[0]}" for s, m in failing.items())


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_saved_reproducers_pass(path: Path) -> None:
    program = Program.from_json(path.read_text())
    report = check(program, SIDES)
    assert report.ok, report.mismatches


def test_regressions_exist() -> None:
    assert REGRESSIONS, "tests/fuzz/regressions holds the reproducers of the bugs fixed"


def _adder(dtype: str = "int32") -> Program:
    """y = x + x over tiles of 8 (an array of 13: two blocks, the second ragged), stored into
    an array of 20 whose last 4 elements no block writes."""
    arrays = [Array("in", dtype, (13,)), Array("out", dtype, (20,))]
    nodes = [Node("load", dtype, (8,), (), {"array": 0, "order": (0,), "padding": "ZERO"}),
             Node("binary", dtype, (8,), (0, 0), {"fn": "add"})]
    return Program(7, 2, arrays, nodes, [Output("store", 1, 1)])


def test_a_wrong_reference_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    assert check(_adder(), SIDES).ok
    real = ref.binary
    monkeypatch.setattr(ref, "binary", lambda name, a, b, **kw: real(name, a, b, **kw) + 1)
    report = check(_adder(), SIDES)
    assert any("interpreter vs reference" in m for m in report.mismatches)


def test_unwritten_and_extra_elements_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ref, "store_tile", lambda array, index, tile: None)
    report = check(_adder(), SIDES)
    assert report.mismatches and "16 of 20 elements differ" in report.mismatches[0]


def test_inexact_outputs_compare_within_their_dtypes_tolerance() -> None:
    from tilelang.testing.fuzz.check import _unequal

    want = np.array([1.0, np.nan, np.inf, 0.0], np.float32)
    close = np.array([1.00001, np.nan, np.inf, 0.0], np.float32)
    assert not _unequal(want, close, 2e-4, "float32").any()
    assert _unequal(want, close, 0.0, "float32").tolist() == [True, False, False, False]
    far = np.array([1.1, 1.0, -np.inf, 0.0], np.float32)
    assert _unequal(want, far, 2e-4, "float32").tolist() == [True, False, False, False]
    assert _unequal(want, far, 0.0, "float32").tolist() == [True, True, True, False]


def test_shrinking_keeps_the_failure_and_drops_the_rest() -> None:
    seed = next(s for s in range(500) if any(
        n.attrs.get("fn") == "argmax" for n in generate(s).nodes) and len(generate(s).nodes) > 8)
    big = generate(seed)

    def has_argmax(p: Program) -> bool:
        return any(n.attrs.get("fn") == "argmax" for n in p.nodes)

    small = shrink(big, has_argmax)
    assert has_argmax(small)
    assert len(small.nodes) <= 3 < len(big.nodes)
    assert small.grid == 1
    assert check(small, SIDES).ok  # still a well-typed program


def test_programs_round_trip_through_json() -> None:
    for seed in range(20):
        p = generate(seed)
        assert kernel_source(Program.from_json(p.to_json())) == kernel_source(p)


def test_prune_drops_dead_nodes_and_arrays() -> None:
    p = _adder()
    p.nodes.append(Node("load", "int32", (8,), (), {"array": 0, "order": (0,),
                                                    "padding": "NAN"}))
    p.arrays.insert(0, Array("table", "int8", (3,)))
    for n in p.nodes:
        n.attrs["array"] = 1
    p.outputs[0].array = 2
    pruned = prune(p)
    assert len(pruned.nodes) == 2 and len(pruned.arrays) == 2
    assert check(pruned, SIDES).ok


def test_only_the_last_programs_kernels_are_kept() -> None:
    """Each kernel holds what it compiled: a long run keeps only the last few modules."""
    import sys

    checking = sys.modules["tilelang.testing.fuzz.check"]
    first = kernel_of(generate(0))
    for seed in range(1, checking.KEPT_MODULES + 3):
        kernel_of(generate(seed))
    assert len(checking._MODULES) == checking.KEPT_MODULES
    assert first.__module__ not in sys.modules
    assert kernel_of(generate(0)) is not first  # loaded again


def test_the_generator_covers_the_language() -> None:
    seen: collections.Counter[str] = collections.Counter()
    for seed in range(800):
        p = generate(seed)
        seen.update(n.op for n in p.nodes)
        seen.update(f"{n.op}:{n.attrs['fn']}" for n in p.nodes if "fn" in n.attrs)
        seen.update(f"padding:{n.attrs['padding']}" for n in p.nodes if n.op == "load")
        seen.update("order" for n in p.nodes if n.op == "load" and n.attrs["order"] != tuple(
            range(len(n.shape))))
        seen.update(f"out:{o.kind}" for o in p.outputs)
        seen.update(f"dtype:{n.dtype}" for n in p.nodes)
        seen.update("nan-reduction" for n in p.nodes if n.attrs.get("propagate_nan"))
        seen.update("ragged" for n in p.nodes if n.op == "reduce" and any(
            d & (d - 1) for d in p.nodes[n.args[0]].shape))
        seen.update(f"kloop:{n.attrs['layout']}" for n in p.nodes if n.op == "kloop")
        seen.update(f"kloop:{p.arrays[n.attrs['array']].dtype}" for n in p.nodes
                    if n.op == "kloop")
        seen.update(f"kloop:columns:{which}" for n in p.nodes if n.op == "kloop"
                    for which in ("array", "array_b") if p.arrays[n.attrs[which]].columns)
        seen.update(["persistent"] if p.launched else [])
        seen.update(f"hint:{k}={v}" for k, v in p.hints.items())
    wanted = ["load", "where", "astype", "reshape", "permute", "expand_dims", "broadcast_to",
              "gather", "mma", "loop", "if", "scan:cumsum", "scan:cumprod", "order", "ragged",
              "nan-reduction", "out:scatter", "out:atomic", "binary:floordiv", "binary:mod",
              "binary:bitwise_lshift", "binary:bitwise_rshift", "unary:exp", "persistent",
              *(f"hint:num_warps={w}" for w in (2, 4, 8)),
              *(f"hint:occupancy={b}" for b in (2, 3)),
              *(f"reduce:{f}" for f in ("sum", "prod", "max", "min", "argmax", "argmin")),
              *(f"padding:{m}" for m in ("ZERO", "NEG_ZERO", "NAN", "POS_INF", "NEG_INF")),
              *(f"dtype:{d}" for d in ref.NP_DTYPES),
              *(f"kloop:{x}" for x in ("kn", "nk_transpose", "nk_order", "batched",
                                       "a_transpose", "columns:array", "columns:array_b",
                                       "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"))]
    assert [w for w in wanted if not seen[w]] == []


def test_k_loops_match_the_reference_exactly() -> None:
    """The GEMM K loops the generator writes (every layout, operands passed column-major, 16-
    and 8-bit inputs) give the reference's exact result on the interpreter, every element of
    the (BM, BN) tile written."""
    programs = [p for p in map(generate, range(800)) if any(n.op == "kloop" for n in p.nodes)]
    layouts = {n.attrs["layout"] for p in programs for n in p.nodes if n.op == "kloop"}
    assert layouts == {"kn", "nk_transpose", "nk_order", "batched", "a_transpose"}

    def columns(p: Program) -> bool:
        return any(p.arrays[n.attrs[w]].columns for n in p.nodes if n.op == "kloop"
                   for w in ("array", "array_b"))

    def transposed(p: Program) -> bool:
        return any(n.attrs["layout"] == "a_transpose" for n in p.nodes if n.op == "kloop")

    picked = programs[:6] + [p for p in programs if columns(p)][:3] + \
        [p for p in programs if transposed(p)][:2]
    assert any(columns(p) for p in picked) and any(transposed(p) for p in picked)
    stored = 0
    for p in picked:
        report = check(p, SIDES)
        assert report.ok, (p.seed, report)
        arrays = [o.array for o in p.outputs if p.nodes[o.value].op == "kloop"]
        assert all(tolerances(p)[a] == 0.0 for a in arrays)  # compared exactly
        stored += len(arrays)
    assert stored >= 3


def test_persistent_programs_walk_their_tiles_with_fewer_blocks() -> None:
    """A program with `launched` blocks walks its `grid` tiles with a grid-stride loop (what
    tile-pipeline-loads loads ahead across the loop's stores); its results are the
    one-block-a-tile program's."""
    programs = [p for p in map(generate, range(200)) if 0 < p.launched < p.grid]
    assert len(programs) >= 5
    for p in programs[:5]:
        source = kernel_source(p)
        assert f"for tile in range(ct.bid(0), {p.grid}, ct.num_blocks(0)):" in source
        assert source.count("ct.bid(0)") == 1  # every other use is the loop's tile
        report = check(p, SIDES)
        assert report.ok, (p.seed, report)


def test_command_line_runs_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--count", "3", "--seed", "11", "--jobs", "1", "--save", ""]) == 0
    out = capsys.readouterr().out
    assert "interpreter: 3 of 3 programs ran" in out and "0 failing programs" in out
    assert main(["--show", "11"]) == 0
    assert "@ct.kernel" in capsys.readouterr().out


def test_hinted_programs_compile_with_their_hints() -> None:
    """A program's hints are its kernel's (`@ct.kernel(num_warps=..., occupancy=...)`), and
    its results are those of the program without them."""
    import dataclasses

    programs = [p for p in map(generate, range(200)) if p.hints and not p.launched][:4]
    assert {k for p in programs for k in p.hints} == {"num_warps", "occupancy"}
    for p in programs:
        source = kernel_source(p)
        assert "@ct.kernel(" in source and all(f"{k}={v}" in source for k, v in p.hints.items())
        report = check(p, SIDES)
        assert report.ok, (p.seed, report)
        assert check(dataclasses.replace(p, hints={}), SIDES).ok
        kernel = kernel_of(p)
        assert kernel.options.num_warps == p.hints.get("num_warps")
        assert kernel.options.occupancy == p.hints.get("occupancy")
