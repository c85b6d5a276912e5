"""Fuzzing: a random tile program as data (SSA nodes), and its kernel's Python source.

A program is a list of nodes, each computing one tile from earlier ones, plus the outputs that
store some of them. The same data drives the source text (what tilelang compiles), the NumPy
reference (evaluate.py) and the shrinker (shrink.py), and is saved as JSON for regressions.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from tilelang.testing.fuzz.reference import kind

ARRAY_KEYS = ("array", "array_b")  # node attributes that name a kernel array parameter


@dataclass
class Node:
    """One SSA value: `op` over the nodes `args`, of `dtype` and `shape`. `exact` is False where
    the docs leave the result's last bits open (transcendental functions, float sums)."""

    op: str
    dtype: str
    shape: tuple[int, ...]
    args: tuple[int, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict)
    exact: bool = True


@dataclass
class Array:
    """A kernel array parameter: an input (`role` "in", "table" or "small") or an output
    ("out", "scatter", "atomic"), with its shape and dtype. `columns`: a 2-d input passed
    column-major (the transposed view of a row-major array of the reversed shape: PyTorch's
    `w.t()`)."""

    role: str
    dtype: str
    shape: tuple[int, ...]
    columns: bool = False


@dataclass
class Output:
    """What writes an output array: `store` of node `value` at tile (bid, 0, ...), `scatter`
    of `value` at `index` where `mask`, or `atomic` (`fn`) of `value` at `index`."""

    kind: str
    array: int
    value: int
    index: int | None = None
    mask: int | None = None
    fn: str = "add"


@dataclass
class Program:
    seed: int
    grid: int
    arrays: list[Array]
    nodes: list[Node]
    outputs: list[Output]
    scalars: list[int] = field(default_factory=list)  # values of the int scalar parameters
    # a persistent kernel: this many blocks launched (0: one block a tile), each walking the
    # `grid` tiles with a grid-stride loop (`range(ct.bid(0), grid, ct.num_blocks(0))`): what
    # tile-pipeline-loads loads ahead across the loop's stores
    launched: int = 0
    # the kernel's hints (`@ct.kernel(num_warps=..., occupancy=...)`): the warps the compiler
    # would not choose, and register caps (and the rings' stages) for blocks sharing an SM
    hints: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Program:
        data = json.loads(text)
        data.pop("note", None)
        data.pop("known_gpu_miscompile", None)
        nodes = [Node(**{**n, "shape": tuple(n["shape"]), "args": tuple(n["args"])})
                 for n in data["nodes"]]
        for n in nodes:
            for key in ("shape", "order", "axes"):
                if key in n.attrs:
                    n.attrs[key] = tuple(n.attrs[key])
        arrays = [Array(a["role"], a["dtype"], tuple(a["shape"]), a.get("columns", False))
                  for a in data["arrays"]]
        outputs = [Output(**o) for o in data["outputs"]]
        return cls(data["seed"], data["grid"], arrays, nodes, outputs, data["scalars"],
                   data.get("launched", 0), data.get("hints", {}))


# ----- source ---------------------------------------------------------------------------------


def _dt(dtype: str) -> str:
    return f"ct.{dtype}"


def _loose(value: bool | int | float, dtype: str) -> str:
    if kind(dtype) == "b":
        return repr(bool(value))
    if kind(dtype) == "f":
        return repr(float(value))
    return repr(int(value))


def _expression(p: Program, n: Node) -> str:
    a = [f"v{i}" for i in n.args]
    at = n.attrs
    if n.op == "load":
        index = ", ".join(["ct.bid(0)", *["0"] * (len(n.shape) - 1)])
        order = f", order={at['order']}" if at["order"] != tuple(range(len(n.shape))) else ""
        return (f"ct.load(x{at['array']}, ({index},), {n.shape}{order}, "
                f"padding_mode=ct.PaddingMode.{at['padding']})")
    if n.op == "bid":
        return "ct.bid(0)"
    if n.op == "scalar":
        return f"s{at['param']}"
    if n.op == "full":
        return f"ct.full({n.shape}, {_loose(at['value'], n.dtype)}, {_dt(n.dtype)})"
    if n.op == "arange":
        return f"ct.arange({n.shape[0]}, dtype=ct.int32)"
    if n.op == "binary":
        if "const" in at:
            c = _loose(at["const"], p.nodes[n.args[0]].dtype)
            a = [a[0], c] if at["side"] == "right" else [c, a[0]]
        nan = ", propagate_nan=True" if at.get("propagate_nan") else ""
        return f"ct.{at['fn']}({a[0]}, {a[1]}{nan})"
    if n.op == "unary":
        return f"ct.{at['fn']}({a[0]})"
    if n.op == "where":
        return f"ct.where({a[0]}, {a[1]}, {a[2]})"
    if n.op == "astype":
        return f"ct.astype({a[0]}, {_dt(n.dtype)})"
    if n.op == "reduce":
        nan = ", propagate_nan=True" if at.get("propagate_nan") else ""
        return f"ct.{at['fn']}({a[0]}, axis={at['axis']}, keepdims={at['keepdims']}{nan})"
    if n.op == "scan":
        return f"ct.{at['fn']}({a[0]}, axis={at['axis']}, reverse={at['reverse']})"
    if n.op == "reshape":
        return f"ct.reshape({a[0]}, {n.shape})"
    if n.op == "permute":
        return f"ct.permute({a[0]}, {at['axes']})"
    if n.op == "expand_dims":
        return f"ct.expand_dims({a[0]}, {at['axis']})"
    if n.op == "broadcast_to":
        return f"ct.broadcast_to({a[0]}, {n.shape})"
    if n.op == "gather":
        mask = f", mask={a[1]}" if len(a) > 1 else ""
        pad = _loose(at["padding_value"], n.dtype)
        return f"ct.gather(x{at['array']}, {a[0]}{mask}, padding_value={pad})"
    if n.op == "mma":
        return f"ct.mma({a[0]}, {a[1]}, {a[2]})"
    raise KeyError(n.op)


def _statements(p: Program, i: int, n: Node) -> list[str]:
    a = [f"v{j}" for j in n.args]
    at = n.attrs
    if n.op == "kloop":
        return _k_loop(i, n)
    if n.op == "mloop":
        return _m_loop(i, n)
    if n.op == "loop":
        trips = f"s{at['param']}" if "param" in at else str(at["trips"])
        step = f"ct.{at['fn']}(v{i}, {a[1]})"
        if at.get("add_index"):
            step = f"{step} + ct.astype(k{i}, {_dt(n.dtype)})"
        return [f"v{i} = {a[0]}", f"for k{i} in range({trips}):", f"    v{i} = {step}"]
    if n.op == "if":
        return [f"if {a[0]}:", f"    v{i} = ct.{at['fn']}({a[1]}, {a[2]})", "else:",
                f"    v{i} = {a[1]}"]
    return [f"v{i} = {_expression(p, n)}"]


def _k_loop(i: int, n: Node) -> list[str]:
    """A GEMM's K loop as a user writes it: block row bid(0) of x(array) times the first BN
    columns of x(array_b), stored (K, N) or (N, K) (transposed, or loaded with order=), or both
    3-d with a unit batch (loads reshaped to 2-d); or A stored (K, M), its tiles transposed
    ("a_transpose"). Column-major arrays (Array.columns) are loaded as any (K, N) or (M, K)."""
    at = n.attrs
    (bm, bn), bk, layout = n.shape, at["bk"], at["layout"]
    xa, xb, k = f"x{at['array']}", f"x{at['array_b']}", f"k{i}"
    zero = "padding_mode=ct.PaddingMode.ZERO"
    if layout == "batched":
        x = f"ct.reshape(ct.load({xa}, (0, ct.bid(0), {k}), (1, {bm}, {bk}), {zero}), ({bm}, {bk}))"
        w = f"ct.reshape(ct.load({xb}, (0, {k}, 0), (1, {bk}, {bn}), {zero}), ({bk}, {bn}))"
    else:
        x = f"ct.load({xa}, (ct.bid(0), {k}), ({bm}, {bk}), {zero})"
        if layout == "a_transpose":
            x = f"ct.transpose(ct.load({xa}, ({k}, ct.bid(0)), ({bk}, {bm}), {zero}))"
        w = {"kn": f"ct.load({xb}, ({k}, 0), ({bk}, {bn}), {zero})",
             "a_transpose": f"ct.load({xb}, ({k}, 0), ({bk}, {bn}), {zero})",
             "nk_transpose": f"ct.transpose(ct.load({xb}, (0, {k}), ({bn}, {bk}), {zero}))",
             "nk_order": f"ct.load({xb}, ({k}, 0), ({bk}, {bn}), order=(1, 0), {zero})"}[layout]
    axis = 2 if layout == "batched" else 0 if layout == "a_transpose" else 1
    return [f"v{i} = ct.full(({bm}, {bn}), 0.0, ct.float32)",
            f"for {k} in range(ct.cdiv({xa}.shape[{axis}], {bk})):",
            f"    v{i} = ct.mma({x}, {w}, v{i})"]


def _m_loop(i: int, n: Node) -> list[str]:
    """Block row bid(0) of x(array), summed over its column blocks with each block masked by
    the loop index (generate.py's `mloop`)."""
    at = n.attrs
    bm, bn = n.shape
    x, k = f"x{at['array']}", f"k{i}"
    cols = f"({k} * {bn} + ct.arange({bn}, dtype=ct.int32)[None, :])"
    rows = f"(ct.bid(0) * {bm} + ct.arange({bm}, dtype=ct.int32)[:, None])"
    keep = " & ".join({
        "bound": f"({cols} < {x}.shape[1])",
        "diagonal": f"({cols} <= {rows})",
        "lower": f"({cols} - {rows} >= s{at.get('lower')})",
        "upper": f"({cols} - {rows} < s{at.get('upper')})"}[t] for t in at["terms"])
    tile = f"ct.load({x}, (ct.bid(0), {k}), ({bm}, {bn}), padding_mode=ct.PaddingMode.ZERO)"
    lines = [f"v{i} = ct.full(({bm}, {bn}), 0, ct.int32)",
             f"for {k} in range(ct.cdiv({x}.shape[1], {bn})):"]
    if at["form"] == "where":
        return [*lines, f"    v{i} = v{i} + ct.where({keep}, {tile}, 0)"]
    return [*lines, f"    if {k} >= s{at['start']}:",
            f"        v{i} = v{i} + ct.where({keep}, {tile}, 0)",
            "    else:", f"        v{i} = v{i} + {tile}"]


def _write(p: Program, o: Output) -> str:
    name = f"x{o.array}"
    if o.kind == "store":
        index = ", ".join(["ct.bid(0)", *["0"] * (len(p.nodes[o.value].shape) - 1)])
        return f"ct.store({name}, ({index},), v{o.value})"
    if o.kind == "scatter":
        mask = f", mask=v{o.mask}" if o.mask is not None else ""
        return f"ct.scatter({name}, v{o.index}, v{o.value}{mask})"
    return f"ct.atomic_{o.fn}({name}, v{o.index}, v{o.value})"


def kernel_source(p: Program, name: str = "fuzz_kernel") -> str:
    params = [f"x{k}" for k in range(len(p.arrays))] + [f"s{k}" for k in range(len(p.scalars))]
    body = [line for i, n in enumerate(p.nodes) for line in _statements(p, i, n)]
    body += [_write(p, o) for o in p.outputs]
    if p.launched:  # the same tiles, walked by fewer blocks
        body = [f"for tile in range(ct.bid(0), {p.grid}, ct.num_blocks(0)):",
                *[f"    {line.replace('ct.bid(0)', 'tile')}" for line in body]]
    hints = ", ".join(f"{k}={v}" for k, v in sorted(p.hints.items()))
    lines = ["import tilelang as ct", "", "", f"@ct.kernel({hints})" if hints else "@ct.kernel",
             f"def {name}({', '.join(params)}):", *[f"    {line}" for line in body], ""]
    return "\n".join(lines)
