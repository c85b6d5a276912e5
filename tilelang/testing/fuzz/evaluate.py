"""Fuzzing: run a program on the NumPy reference, block by block, as the docs define it."""

from __future__ import annotations

import numpy as np

from tilelang.testing.fuzz import reference as ref
from tilelang.testing.fuzz.program import Node, Program


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a and b broadcast to their common shape."""
    x, y = np.broadcast_arrays(a, b)
    return x, y


def _const(value: float, dtype: str) -> np.ndarray:
    if ref.kind(dtype) == "f":
        return ref.astype(np.asarray(float(value), np.float64), dtype)
    return np.asarray(value).astype(ref.NP_DTYPES[dtype])


def _node(p: Program, n: Node, env: list[np.ndarray], arrays: list[np.ndarray], bid: int,
          ) -> np.ndarray:
    a = [env[i] for i in n.args]
    at = n.attrs
    if n.op == "load":
        index = (bid, *[0] * (len(n.shape) - 1))
        return ref.load_tile(arrays[at["array"]], index, n.shape, at["order"], at["padding"])
    if n.op == "bid":
        return np.asarray(bid, np.int32)
    if n.op == "scalar":
        return np.asarray(p.scalars[at["param"]], np.int32)
    if n.op == "full":
        return np.broadcast_to(_const(at["value"], n.dtype), n.shape).copy()
    if n.op == "arange":
        return np.arange(n.shape[0], dtype=np.int32)
    if n.op == "binary":
        if "const" in at:
            c = _const(at["const"], p.nodes[n.args[0]].dtype)
            a = [a[0], c] if at["side"] == "right" else [c, a[0]]
        x, y = np.broadcast_arrays(*a)
        out = ref.binary(at["fn"], x, y, propagate_nan=at.get("propagate_nan", False))
        return np.asarray(out).reshape(n.shape)
    if n.op == "unary":
        return ref.unary(at["fn"], a[0])
    if n.op == "where":
        return ref.where(*np.broadcast_arrays(*a)).reshape(n.shape)
    if n.op == "astype":
        return ref.astype(a[0], n.dtype)
    if n.op == "reduce":
        return np.asarray(ref.reduce(at["fn"], a[0], at["axis"], at["keepdims"],
                                     at.get("propagate_nan", False))).reshape(n.shape)
    if n.op == "scan":
        return ref.scan(at["fn"], a[0], at["axis"], at["reverse"])
    if n.op == "reshape":
        return a[0].reshape(n.shape)
    if n.op == "permute":
        return np.transpose(a[0], at["axes"])
    if n.op == "expand_dims":
        return np.expand_dims(a[0], at["axis"])
    if n.op == "broadcast_to":
        return np.broadcast_to(a[0], n.shape).copy()
    if n.op == "gather":
        pad = _const(at["padding_value"], n.dtype)
        return ref.gather(arrays[at["array"]], a[0], a[1] if len(a) > 1 else None, pad)
    if n.op == "mma":
        product = a[0].astype(np.float64) @ a[1].astype(np.float64)
        return (product + a[2].astype(np.float64)).astype(ref.NP_DTYPES[n.dtype])
    if n.op == "kloop":
        return _k_loop(n, arrays, bid)
    if n.op == "mloop":
        return _m_loop(n, arrays, bid, p.scalars)
    if n.op == "loop":
        trips = p.scalars[at["param"]] if "param" in at else at["trips"]
        value = a[0]
        for k in range(trips):
            value = ref.binary(at["fn"], *_pair(value, a[1]))
            if at.get("add_index"):
                value = ref.binary("add", value, _const(k, n.dtype))
        return np.asarray(value).reshape(n.shape)
    if n.op == "if":
        if bool(a[0]):
            return np.asarray(ref.binary(at["fn"], *_pair(a[1], a[2])))
        return a[1]
    raise KeyError(n.op)


def _k_loop(n, arrays: list[np.ndarray], bid: int) -> np.ndarray:
    """Block row `bid` of A times B's first BN columns, past the arrays' edges zero, in float64
    (the inputs are small integers: every partial sum is exact in float32)."""
    a = arrays[n.attrs["array"]].astype(np.float64)
    b = arrays[n.attrs["array_b"]].astype(np.float64)
    layout = n.attrs["layout"]
    if layout == "batched":
        a, b = a[0], b[0]
    if layout.startswith("nk"):
        b = b.T
    if layout == "a_transpose":
        a = a.T
    bm, bn = n.shape
    part = a[bid * bm:(bid + 1) * bm] @ b[:, :bn]
    out = np.zeros((bm, bn))
    out[:part.shape[0], :part.shape[1]] = part
    return out.astype(np.float32)


def _m_loop(n, arrays: list[np.ndarray], bid: int, scalars: list[int]) -> np.ndarray:
    """The masked column-block loop: past the array's edge zero, each block's elements kept
    where every term holds (or all of a block before `start`, in the `if` form)."""
    at = n.attrs
    x = arrays[at["array"]]
    bm, bn = n.shape
    rows = bid * bm + np.arange(bm)[:, None]
    acc = np.zeros((bm, bn), np.int64)
    for j in range(-(-x.shape[1] // bn)):
        cols = j * bn + np.arange(bn)[None, :]
        tile = np.zeros((bm, bn), np.int64)
        part = x[bid * bm:(bid + 1) * bm, j * bn:(j + 1) * bn]
        tile[:part.shape[0], :part.shape[1]] = part
        keep = np.ones((bm, bn), bool)
        for term in at["terms"]:
            keep &= _m_loop_term(term, cols - rows, cols < x.shape[1], at, scalars)
        plain = at["form"] == "if" and not j >= scalars[at["start"]]
        acc += tile if plain else np.where(keep, tile, 0)
    return acc.astype(np.int32)


def _m_loop_term(term: str, offset: np.ndarray, inside: np.ndarray, at: dict,
                 scalars: list[int]) -> np.ndarray:
    """One mask term of a masked loop's block: `offset` is cols - rows."""
    if term == "bound":
        return inside
    if term == "diagonal":
        return offset <= 0
    if term == "lower":
        return offset >= scalars[at["lower"]]
    return offset < scalars[at["upper"]]


def _write(p: Program, o, env: list[np.ndarray], arrays: list[np.ndarray], bid: int) -> None:
    out = arrays[o.array]
    value = env[o.value]
    if o.kind == "store":
        ref.store_tile(out, (bid, *[0] * (value.ndim - 1)), value.astype(out.dtype))
        return
    index, value = np.broadcast_arrays(env[o.index], value)
    live = (index.astype(object) >= 0) & (index.astype(object) < out.shape[0])
    if o.mask is not None:
        live = live & np.broadcast_to(env[o.mask], index.shape)
    for i, v in zip(index[live].tolist(), value[live], strict=True):
        if o.kind == "scatter":
            out[i] = v
        elif o.fn == "add":
            out[i] = ref.binary("add", np.asarray(out[i]), np.asarray(v, out.dtype))
        else:
            out[i] = (max if o.fn == "max" else min)(out[i], v)


def run_reference(p: Program, arrays: list[np.ndarray]) -> None:
    """Run every block in order; output arrays are written in place."""
    with np.errstate(all="ignore"):
        for bid in range(p.grid):
            env: list[np.ndarray] = []
            for n in p.nodes:
                env.append(np.asarray(_node(p, n, env, arrays, bid)))
            for o in p.outputs:
                _write(p, o, env, arrays, bid)
