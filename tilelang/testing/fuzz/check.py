"""Fuzzing: run one program three ways (reference, interpreter, GPU) and compare the outputs.

Outputs start poisoned, so an element a side fails to write (or writes where it should not)
differs from the reference. Exact outputs must match value for value (NaN where NaN); inexact
ones (`Node.exact` False) within a tolerance of their dtype.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tilelang.testing.fuzz import reference as ref
from tilelang.testing.fuzz.evaluate import run_reference
from tilelang.testing.fuzz.program import Program, kernel_source

TOLERANCE = {"float16": 2e-2, "bfloat16": 6e-2, "float32": 2e-4, "float64": 1e-9,
             "float8_e4m3fn": 0.13, "float8_e5m2": 0.26}
SPECIAL = (np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, 1e-40, 65504.0)


@dataclass
class Outcome:
    """One side's result: the output arrays, or the error it raised."""

    arrays: list[np.ndarray] | None = None
    error: str | None = None


@dataclass
class Report:
    program: Program
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


# ----- inputs ---------------------------------------------------------------------------------


def inputs(p: Program) -> list[np.ndarray]:
    """Fresh arrays for every parameter, from the program's seed: inputs with NaN, infinities,
    signed zeros and subnormals mixed in; outputs poisoned."""
    rng = np.random.default_rng(p.seed)
    return [_array(rng, a.role, a.dtype, a.shape[::-1]).T if a.columns else
            _array(rng, a.role, a.dtype, a.shape) for a in p.arrays]


def _array(rng: np.random.Generator, role: str, dtype: str, shape: tuple[int, ...]
           ) -> np.ndarray:
    target = ref.NP_DTYPES[dtype]
    if role in ("out", "scatter"):
        return _poison(dtype, shape)
    if role == "atomic":
        return rng.integers(-3, 4, shape).astype(target) if ref.kind(dtype) == "i" else \
            rng.integers(0, 4, shape).astype(target)
    if role == "small":  # exact products: small integers
        return rng.integers(-3, 4, shape).astype(np.float64).astype(target)
    k = ref.kind(dtype)
    if k == "b":
        return rng.random(shape) < 0.5
    if k in "iu":
        info = np.iinfo(target)
        small = rng.integers(max(info.min, -8), 9, shape)
        wide = rng.integers(info.min, info.max, shape, dtype=target, endpoint=True)
        picked = np.where(rng.random(shape) < 0.3, wide, small.astype(target))
        return picked.astype(target)
    values = rng.normal(0.0, 2.0, shape)
    special = rng.choice(np.array(SPECIAL), shape)
    values = np.where(rng.random(shape) < 0.12, special, values)
    return ref.astype(values, dtype)


def _poison(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if ref.kind(dtype) == "b":
        return np.ones(shape, bool)
    if ref.kind(dtype) == "f":
        return ref.astype(np.full(shape, -77.0), dtype)
    return np.full(shape, 0x5A, ref.NP_DTYPES[dtype])


# ----- the sides ------------------------------------------------------------------------------

# The kernels of the last few programs (a program's sides, and shrinking, load it again). Only
# a few: each holds what it compiled, and a run of thousands of seeds kept them all (gigabytes).
_MODULES: OrderedDict[str, Any] = OrderedDict()
KEPT_MODULES = 8


def kernel_of(p: Program, folder: Path | None = None) -> Any:
    """The program's kernel, from a module written under `folder` (a temporary one)."""
    source = kernel_source(p)
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    if digest in _MODULES:
        _MODULES.move_to_end(digest)
    else:
        while len(_MODULES) >= KEPT_MODULES:
            sys.modules.pop(f"tilelang_fuzz_{_MODULES.popitem(last=False)[0]}", None)
        folder = folder or Path(tempfile.gettempdir()) / "tilelang-fuzz"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"fuzz_{digest}.py"
        if not path.exists():  # written whole, then renamed: workers share the folder
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(source)
            os.replace(partial, path)
        spec = importlib.util.spec_from_file_location(f"tilelang_fuzz_{digest}", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[spec.name] = module  # type: ignore[union-attr]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        _MODULES[digest] = module.fuzz_kernel
    return _MODULES[digest]


def run_side(p: Program, side: str) -> Outcome:
    arrays = inputs(p)
    try:
        if side == "reference":
            run_reference(p, arrays)
        elif side == "compile":  # the GPU compiler to PTX, with no GPU: CI's view of it
            _compile(p, arrays)
            return Outcome()
        elif side == "interpreter":
            _run_interpreter(p, arrays)
        else:
            arrays = _run_gpu(p, arrays)
    except Exception as e:  # a side that raises on a valid program is a finding
        return Outcome(error=f"{type(e).__name__}: {e}")
    return Outcome(arrays=arrays)


def _run_interpreter(p: Program, arrays: list[np.ndarray]) -> None:
    import tilelang as ct

    kernel = kernel_of(p).replace_hints(interpret=True)
    ct.launch(None, (p.launched or p.grid,), kernel, (*arrays, *p.scalars))


def _compile(p: Program, arrays: list[np.ndarray]) -> None:
    from tilelang import compiler

    compiler.compile(kernel_of(p), (*arrays, *p.scalars), stop_after="ptx")


def _run_gpu(p: Program, arrays: list[np.ndarray]) -> list[np.ndarray]:
    import torch

    import tilelang as ct

    device = [to_torch(a).cuda() for a in arrays]
    ct.launch(torch.cuda.current_stream(), (p.launched or p.grid,), kernel_of(p),
              (*device, *p.scalars))
    torch.cuda.synchronize()
    return [from_torch(t, a.dtype) for t, a in zip(device, arrays, strict=True)]


def to_torch(a: np.ndarray) -> Any:
    import torch

    if a.dtype == np.bool_:
        return torch.from_numpy(a.copy())
    if a.ndim == 2 and not a.flags.c_contiguous and a.T.flags.c_contiguous:
        return to_torch(a.T).t()  # column-major stays so (`.cuda()` keeps the strides)
    bits = np.dtype(f"u{a.dtype.itemsize}")
    raw = torch.from_numpy(np.ascontiguousarray(a).view(bits).copy())
    return raw.view(getattr(torch, _dtype_name(a.dtype)))


def from_torch(t: Any, dtype: np.dtype) -> np.ndarray:
    import torch

    t = t.cpu()
    if dtype == np.bool_:
        return t.numpy().copy()
    width = {1: torch.uint8, 2: torch.uint16, 4: torch.uint32, 8: torch.uint64}[dtype.itemsize]
    return t.view(width).numpy().view(dtype).copy()


def _dtype_name(dtype: np.dtype) -> str:
    return next(n for n, d in ref.NP_DTYPES.items() if d == dtype)


# ----- comparison -----------------------------------------------------------------------------


def tolerances(p: Program) -> list[float]:
    """Per array: 0 where its output must match exactly, else the relative tolerance of the
    coarsest float dtype its value went through (a float32 `pow` stored as float64 carries
    float32's error)."""
    found = [0.0] * len(p.arrays)
    for o in p.outputs:
        if not p.nodes[o.value].exact:
            ancestors = [p.nodes[i] for i in _ancestors(p, o.value)]
            found[o.array] = max(TOLERANCE.get(n.dtype, 0.0) for n in ancestors)
            if any(n.attrs.get("loose") for n in ancestors):  # sin of an inexact sum, ...
                found[o.array] = 1.0
    return found


def _ancestors(p: Program, i: int) -> set[int]:
    seen, stack = set(), [i]
    while stack:
        j = stack.pop()
        if j not in seen:
            seen.add(j)
            stack.extend(p.nodes[j].args)
    return seen


def differences(p: Program, want: list[np.ndarray], got: list[np.ndarray]) -> list[str]:
    found = []
    for k, (w, g, rtol) in enumerate(zip(want, got, tolerances(p), strict=True)):
        if p.arrays[k].role in ("in", "table", "small"):
            continue
        bad = _unequal(w, g, rtol, p.arrays[k].dtype)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            found.append(f"x{k} ({p.arrays[k].dtype}{list(w.shape)}): {int(bad.sum())} of "
                         f"{bad.size} elements differ, first at {where}: expected {w[where]!r}, "
                         f"got {g[where]!r}")
    return found


def _unequal(want: np.ndarray, got: np.ndarray, rtol: float, dtype: str) -> np.ndarray:
    if ref.kind(dtype) != "f":
        return want != got
    w, g = want.astype(np.float64), got.astype(np.float64)
    nan = np.isnan(w) != np.isnan(g)
    if not rtol:
        return nan | ((w != g) & ~np.isnan(w))
    # The docs leave the association of float sums and products open, so where a value
    # overflows or meets an infinity depends on it (inf * 0 here, 0 there): inexact outputs
    # compare where both sides are finite; exact ones above check every NaN and infinity.
    both = np.isfinite(w) & np.isfinite(g)
    w, g = np.where(both, w, 0.0), np.where(both, g, 0.0)
    nan = np.zeros(w.shape, bool)
    rtol = max(rtol, TOLERANCE[dtype])
    finite = np.abs(w[np.isfinite(w)])
    atol = rtol * max(1.0, float(finite.max()) if finite.size else 1.0)
    close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    return nan | ~close


def check(p: Program, sides: tuple[str, ...] = ("reference", "interpreter")) -> Report:
    """Run `p` on each side; the first side is the one the others are compared with."""
    report = Report(p)
    for side in sides:
        report.outcomes[side] = run_side(p, side)
    base = report.outcomes[sides[0]]
    for side in sides[1:]:
        other = report.outcomes[side]
        if side == "compile":
            if other.error:
                report.mismatches.append(f"compile: {other.error}")
            continue
        if base.error or other.error:
            if base.error != other.error:
                report.mismatches.append(f"{sides[0]}: {base.error or 'ran'}; "
                                         f"{side}: {other.error or 'ran'}")
            continue
        for line in differences(p, base.arrays, other.arrays):  # type: ignore[arg-type]
            report.mismatches.append(f"{side} vs {sides[0]}: {line}")
    return report


def run_seed(job: tuple[int, tuple[str, ...]]) -> tuple[int, list[str], list[str]]:
    """(seed, mismatches, the sides that ran it without raising): a worker's task."""
    from tilelang.testing.fuzz.generate import generate

    seed, sides = job
    report = check(generate(seed), sides)
    ran = [s for s, o in report.outcomes.items() if o.error is None]
    return seed, report.mismatches, ran


def failures(seeds: range, sides: tuple[str, ...]) -> dict[int, list[str]]:
    """Seed -> mismatches, for every failing program of `seeds` (the tiers' bounded runs)."""
    from tilelang.testing.fuzz.generate import generate

    found = {}
    for seed in seeds:
        report = check(generate(seed), sides)
        if not report.ok:
            found[seed] = report.mismatches
    return found
