"""Fuzzing: random well-typed programs from a seed.

The generator only writes programs whose meaning the docs define: operands of binary ops have
one dtype (or a loose constant of the same category that fits), shapes broadcast, and values
whose last bits the docs leave open (`Node.exact` False: transcendental functions, float sums)
never reach an operation that would magnify those bits (floor, comparisons, float to integer).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from tilelang.testing.fuzz.program import Array, Node, Output, Program
from tilelang.testing.fuzz.reference import FLOAT8, FLOATS, HALF, INTS, bits, kind

NUMERIC = (*INTS, "float16", "bfloat16", "float32", "float64")
ALL = ("bool_", *NUMERIC, *FLOAT8)
PADDINGS = ("ZERO", "NEG_ZERO", "NAN", "POS_INF", "NEG_INF", "UNDETERMINED")
ARITH = ("add", "sub", "mul", "floordiv", "mod", "minimum", "maximum", "pow", "truediv")
DISCONTINUOUS = ("floordiv", "mod", "pow")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")
SHIFTS = ("bitwise_lshift", "bitwise_rshift")
COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
EXACT_MATH = ("floor", "ceil", "sqrt", "abs", "negative")
INEXACT_MATH = ("exp", "exp2", "log", "log2", "sin", "cos", "tanh")
ILL_CONDITIONED = ("exp", "exp2", "sin", "cos")  # magnify an inexact argument's error
SIZES = (1, 2, 3, 4, 5, 7, 8, 12, 16)


class Generator:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.grid = self.rng.choice((1, 1, 2, 3))
        rank = self.rng.choice((1, 1, 2, 2, 2, 3))
        self.base = tuple(self.rng.choice(SIZES) for _ in range(rank))
        self.main = [*self.rng.sample(ALL, 2), self.rng.choice(NUMERIC)]
        self.arrays: list[Array] = []
        self.nodes: list[Node] = []
        self.outputs: list[Output] = []
        self.scalars: list[int] = []

    # ----- building blocks --------------------------------------------------------------------

    def add(self, node: Node) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def array(self, role: str, dtype: str, shape: tuple[int, ...], columns: bool = False) -> int:
        self.arrays.append(Array(role, dtype, shape, columns))
        return len(self.arrays) - 1

    def load(self, dtype: str, shape: tuple[int, ...] | None = None, role: str = "in",
             padding: str | None = None) -> int:
        shape = shape or self.base
        r = self.rng
        order = tuple(range(len(shape)))
        if len(shape) > 1 and r.random() < 0.25:
            order = tuple(r.sample(range(len(shape)), len(shape)))
        view = [max(1, (self.grid - 1) * shape[0] + r.randint(1, shape[0] + 1))]
        view += [max(1, s + r.choice((-2, -1, 0, 0, 1, 3))) for s in shape[1:]]
        extents = [0] * len(shape)  # the array's shape: the view's axes put back in place
        for k, axis in enumerate(order):
            extents[axis] = view[k]
        padding = padding or r.choice(_paddings(dtype))
        a = self.array(role, dtype, tuple(extents))
        return self.add(Node("load", dtype, shape, (), {"array": a, "order": order,
                                                        "padding": padding}))

    def scalar_param(self) -> int:
        self.scalars.append(self.rng.choice((-3, 0, 1, 2, 5, 2**31 - 1)))
        return self.add(Node("scalar", "int32", (), (), {"param": len(self.scalars) - 1}))

    def pick(self, accept: Callable[[Node], bool]) -> int | None:
        found = [i for i, n in enumerate(self.nodes) if accept(n)]
        if not found:
            return None
        recent = found[-4:]
        return self.rng.choice(recent if self.rng.random() < 0.6 else found)

    def convert(self, i: int, dtype: str) -> int:
        """Node i as `dtype`: itself, or an astype when the docs define the conversion."""
        n = self.nodes[i]
        if n.dtype == dtype:
            return i
        return self.add(Node("astype", dtype, n.shape, (i,), {}, n.exact))

    def partner(self, i: int, dtype: str) -> int | None:
        """A second operand for node i: of `dtype`, broadcasting into i's shape."""
        shape = self.nodes[i].shape
        j = self.pick(lambda n: _broadcasts_into(n.shape, shape) and _castable(n, dtype))
        return None if j is None else self.convert(j, dtype)

    # ----- ops --------------------------------------------------------------------------------

    def binary(self) -> int | None:
        r = self.rng
        fn = r.choice((*ARITH, *ARITH, *BITWISE, *SHIFTS, *COMPARE))
        i = self.pick(lambda n: _binary_ok(fn, n.dtype) and (n.exact or _continuous(fn)))
        if i is None:
            return None
        a = self.nodes[i]
        args: tuple[int, ...]
        attrs: dict[str, object]
        if r.random() < 0.2 and a.shape:
            c = _constant(r, a.dtype, fn)
            if c is None:
                return None
            side = r.choice(("left", "right"))
            j_shape, args, attrs = a.shape, (i,), {"const": c, "side": side}
            exact = a.exact
        else:
            j = self.partner(i, a.dtype)
            if j is None or (not self.nodes[j].exact and not _continuous(fn)):
                return None
            if r.random() < 0.3:
                i, j = j, i
            args, attrs = (i, j), {}
            j_shape = tuple(np.broadcast_shapes(self.nodes[i].shape, self.nodes[j].shape))
            exact = self.nodes[i].exact and self.nodes[j].exact
        attrs["fn"] = fn
        if fn in ("minimum", "maximum") and kind(a.dtype) == "f":
            attrs["propagate_nan"] = r.random() < 0.3
        dtype = "bool_" if fn in COMPARE else "float32" if fn == "truediv" and \
            kind(a.dtype) != "f" else a.dtype
        exact = exact and not (fn == "pow" and kind(a.dtype) == "f")
        return self.add(Node("binary", dtype, j_shape, args, attrs, exact))

    def unary(self) -> int | None:
        r = self.rng
        fn = r.choice((*EXACT_MATH, *INEXACT_MATH, "isnan", "bitwise_not", "abs", "negative"))
        i = self.pick(lambda n: _unary_ok(fn, n))
        if i is None:
            return None
        n = self.nodes[i]
        dtype = "bool_" if fn == "isnan" else n.dtype
        attrs: dict[str, object] = {"fn": fn}
        if not n.exact and fn in ILL_CONDITIONED:  # compared only where both sides are finite,
            attrs["loose"] = True  # within 1: an ulp of 65504 is 0.004 radians
        return self.add(Node("unary", dtype, n.shape, (i,), attrs,
                             n.exact and fn not in INEXACT_MATH))

    def where(self) -> int | None:
        c = self.pick(lambda n: n.dtype == "bool_" and n.exact)
        if c is None:
            return None
        shape = self.nodes[c].shape
        i = self.pick(lambda n: _broadcasts_into(shape, n.shape) or
                      _broadcasts_into(n.shape, shape))
        if i is None:
            return None
        j = self.partner(i, self.nodes[i].dtype)
        if j is None:
            return None
        try:
            out = tuple(np.broadcast_shapes(shape, self.nodes[i].shape, self.nodes[j].shape))
        except ValueError:
            return None
        a, b = self.nodes[i], self.nodes[j]
        return self.add(Node("where", a.dtype, out, (c, i, j), {}, a.exact and b.exact))

    def astype(self) -> int | None:
        dtype = self.rng.choice((*self.main, *ALL))
        i = self.pick(lambda n: n.dtype != dtype and _castable(n, dtype))
        return None if i is None else self.convert(i, dtype)

    def reduce(self) -> int | None:
        r = self.rng
        fn = r.choice(("sum", "prod", "max", "min", "argmax", "argmin"))
        i = self.pick(lambda n: len(n.shape) > 0 and n.dtype in NUMERIC and
                      (n.exact or fn in ("sum", "max", "min")))
        if i is None:
            return None
        n = self.nodes[i]
        axis, keepdims = r.randrange(len(n.shape)), r.random() < 0.5
        shape = tuple(1 if k == axis else d for k, d in enumerate(n.shape)) if keepdims else \
            tuple(d for k, d in enumerate(n.shape) if k != axis)
        attrs = {"fn": fn, "axis": axis, "keepdims": keepdims}
        if fn not in ("sum", "prod") and kind(n.dtype) == "f":
            attrs["propagate_nan"] = r.random() < 0.3
        dtype = "int32" if fn.startswith("arg") else n.dtype
        exact = n.exact and not (fn in ("sum", "prod") and kind(n.dtype) == "f")
        return self.add(Node("reduce", dtype, shape, (i,), attrs, exact))

    def scan(self) -> int | None:
        r = self.rng
        fn = r.choice(("cumsum", "cumprod"))
        i = self.pick(lambda n: len(n.shape) > 0 and n.dtype in NUMERIC)
        if i is None:
            return None
        n = self.nodes[i]
        attrs = {"fn": fn, "axis": r.randrange(len(n.shape)), "reverse": r.random() < 0.4}
        return self.add(Node("scan", n.dtype, n.shape, (i,), attrs,
                             n.exact and kind(n.dtype) != "f"))

    def shape_op(self) -> int | None:
        r = self.rng
        i = self.pick(lambda n: len(n.shape) > 0)
        if i is None:
            return None
        n = self.nodes[i]
        choice = r.choice(("reshape", "permute", "expand_dims", "broadcast_to"))
        attrs: dict = {}
        if choice == "reshape":
            size = int(np.prod(n.shape))
            shape = r.choice(_factorizations(size))
        elif choice == "permute" and len(n.shape) > 1:
            attrs["axes"] = tuple(r.sample(range(len(n.shape)), len(n.shape)))
            shape = tuple(n.shape[k] for k in attrs["axes"])
        elif choice == "expand_dims" and len(n.shape) < 3:
            attrs["axis"] = r.randint(0, len(n.shape))
            shape = (*n.shape[:attrs["axis"]], 1, *n.shape[attrs["axis"]:])
        elif choice == "broadcast_to" and 1 in n.shape:
            shape = tuple(r.choice((2, 3, 4)) if d == 1 else d for d in n.shape)
        else:
            return None
        return self.add(Node(choice, n.dtype, shape, (i,), attrs, n.exact))

    def gather(self) -> int | None:
        r = self.rng
        i = self.pick(lambda n: n.dtype in INTS and n.exact and len(n.shape) > 0)
        if i is None:
            return None
        dtype = r.choice(self.main)
        length = r.randint(1, 20)
        table = self.array("table", dtype, (length,))
        index = self.convert(i, "int32")
        shape = self.nodes[index].shape
        index = self.add(Node("binary", "int32", shape, (index,),
                              {"fn": "mod", "const": length + 4, "side": "right"}))
        index = self.add(Node("binary", "int32", shape, (index,),
                              {"fn": "sub", "const": 2, "side": "right"}))
        args: tuple[int, ...] = (index,)
        m = self.pick(lambda n: n.dtype == "bool_" and n.exact and
                      _broadcasts_into(n.shape, shape))
        if m is not None and r.random() < 0.6:
            args = (index, m)
        pad = _constant(r, dtype, "gather") if kind(dtype) != "b" else r.random() < 0.5
        return self.add(Node("gather", dtype, shape, args, {"array": table,
                                                            "padding_value": pad or 0}))

    def mma(self) -> int | None:
        r = self.rng
        dtype = r.choice(("float16", "bfloat16", "float16", "int8"))
        m, n, k = (r.choice((1, 2, 4, 8, 16, 32)) for _ in range(3))
        a = self.load(dtype, (m, k), role="small", padding="ZERO")
        b = self.load(dtype, (k, n), role="small", padding="ZERO")
        acc_dtype = "int32" if dtype == "int8" else "float32"
        acc = self.add(Node("full", acc_dtype, (m, n), (), {"value": r.choice((0, 1, -2))}))
        return self.add(Node("mma", acc_dtype, (m, n), (a, b, acc)))

    def kloop(self) -> int:
        """A GEMM's K loop (program.py's `_k_loop`) with the tiles and dtypes the whole-loop
        paths take (wgmma, TMA rings, fp8 B transposed in shared memory, batched loads
        reshaped, operands given column-major or transposed: row-major views, M-major A; 8-bit
        products promoted to float32, overlapped with the next K tile's at 128x128) and
        some they decline (unaligned rows, BN below 128 for fp8 given (K, N), an 8-bit A given
        M-major). The inputs are small integers, so the result is exact on every path."""
        r = self.rng
        dtype = r.choice(("float16", "bfloat16", *FLOAT8))
        eight = dtype in FLOAT8
        bm = r.choice((64, 128))
        # 8-bit: mostly the tiles and 16-byte-aligned rows wgmma takes (BN 128: the overlapped
        # promotion), now and then what it declines (BN 64 given (K, N), unaligned rows)
        bn = r.choice((64, 128, 128, 128, 256) if eight else (64, 128, 128, 256))
        bk = 128 if eight else r.choice((32, 64, 64))
        # 1 to 5 K tiles of 128, odd counts and even (the overlapped promotion of 8-bit loops
        # runs two iterations a trip and an odd last one); 200 and 264 leave 8-bit rows
        # unaligned for TMA and wgmma, the paths that decline them
        k = r.choice((64, 144, 200, 336, 400, 528) if eight else
                     (64, 144, 200, 264, 336, 400, 528))
        layout = r.choice(("kn", "kn", "nk_transpose", "nk_order", "batched", "a_transpose"))
        m = max(1, self.grid * bm - r.choice((0, 0, 1, 37)))
        n = bn - r.choice((0, 0, 16, 16, 8) if eight else (0, 0, 8, 16))
        a_shape: tuple[int, ...] = (1, m, k) if layout == "batched" else (
            (k, m) if layout == "a_transpose" else (m, k))
        b_shape: tuple[int, ...] = (1, k, n) if layout == "batched" else (
            (n, k) if layout.startswith("nk") else (k, n))
        # either operand passed column-major (PyTorch's `.t()`), read through its view
        plain = layout != "batched"
        a = self.array("small", dtype, a_shape, columns=plain and r.random() < 0.2)
        b = self.array("small", dtype, b_shape, columns=plain and r.random() < 0.25)
        return self.add(Node("kloop", "float32", (bm, bn), (),
                             {"array": a, "array_b": b, "bk": bk, "layout": layout}))

    def mloop(self) -> int:
        """A loop over a block row's column blocks that masks each block by the loop index
        (program.py's `_m_loop`): past the row's end, the diagonal, a band's bounds (int
        parameters), with `ct.where` at every block or only under `if k >= start`. Such loops
        are what tile-split-masked-loops rewrites. int32 values, so sums are exact."""
        r = self.rng
        bm, bn = r.choice((1, 4, 16)), r.choice((4, 8, 32))
        n = r.choice((1, 5, 37, 64, 100))
        m = max(1, self.grid * bm - r.choice((0, 0, 1)))
        a = self.array("small", "int32", (m, n))
        terms = sorted(r.sample(("bound", "diagonal", "lower", "upper"), r.randint(1, 3)))
        attrs: dict = {"array": a, "terms": terms, "form": r.choice(("where", "where", "if"))}
        for term in ("lower", "upper"):
            if term in terms:
                self.scalars.append(r.randint(-40, 60))
                attrs[term] = len(self.scalars) - 1
        if attrs["form"] == "if":
            self.scalars.append(r.randint(-1, 8))
            attrs["start"] = len(self.scalars) - 1
        return self.add(Node("mloop", "int32", (bm, bn), (), attrs))

    def loop(self) -> int | None:
        r = self.rng
        fn = r.choice(("add", "mul", "maximum", "bitwise_xor", "sub"))
        i = self.pick(lambda n: _binary_ok(fn, n.dtype) and (n.exact or _continuous(fn)))
        if i is None:
            return None
        n = self.nodes[i]
        j = self.partner(i, n.dtype)
        if j is None:
            return None
        attrs: dict = {"fn": fn, "add_index": kind(n.dtype) != "b" and r.random() < 0.5}
        if r.random() < 0.3:
            self.scalars.append(r.choice((0, 1, 3)))
            attrs["param"] = len(self.scalars) - 1
        else:
            attrs["trips"] = r.choice((0, 1, 2, 5))
        exact = n.exact and self.nodes[j].exact
        return self.add(Node("loop", n.dtype, n.shape, (i, j), attrs, exact))

    def branch(self) -> int | None:
        r = self.rng
        source = r.choice(("bid", "scalar", "data"))
        if source == "data":
            c = self.pick(lambda n: n.dtype == "bool_" and n.shape == () and n.exact)
            if c is None:
                return None
        else:
            s = self.add(Node("bid", "int32", ())) if source == "bid" else self.scalar_param()
            c = self.add(Node("binary", "bool_", (), (s,), {
                "fn": r.choice(("equal", "greater", "less_equal")), "const": r.choice((0, 1)),
                "side": "right"}))
        fn = r.choice(("add", "maximum", "bitwise_or", "mul"))
        i = self.pick(lambda n: _binary_ok(fn, n.dtype) and (n.exact or _continuous(fn)))
        if i is None:
            return None
        j = self.partner(i, self.nodes[i].dtype)
        if j is None:
            return None
        n = self.nodes[i]
        return self.add(Node("if", n.dtype, n.shape, (c, i, j), {"fn": fn},
                             n.exact and self.nodes[j].exact))

    # ----- outputs ----------------------------------------------------------------------------

    def store(self, i: int) -> None:
        n = self.nodes[i]
        if not n.shape:
            i = self.add(Node("reshape", n.dtype, (1,), (i,), {}, n.exact))
            n = self.nodes[i]
        r = self.rng
        extents = [max(1, self.grid * n.shape[0] - r.choice((0, 0, 1, 2)))]
        extents += [max(1, d + r.choice((-1, 0, 0, 1))) for d in n.shape[1:]]
        a = self.array("out", n.dtype, tuple(extents))
        self.outputs.append(Output("store", a, i))

    def scatter(self) -> None:
        """Unique positions (an odd multiple of arange is a permutation of a power of two)."""
        r = self.rng
        size = r.choice((2, 4, 8, 16))
        v = self.pick(lambda n: int(np.prod(n.shape)) == size and n.dtype != "bool_")
        if v is None:
            return
        n = self.nodes[v]
        if n.shape != (size,):
            v = self.add(Node("reshape", n.dtype, (size,), (v,), {}, n.exact))
        ramp = self.add(Node("arange", "int32", (size,)))
        perm = self.add(Node("binary", "int32", (size,), (ramp,),
                             {"fn": "mul", "const": r.choice((1, 3, 5)), "side": "right"}))
        perm = self.add(Node("binary", "int32", (size,), (perm,),
                             {"fn": "mod", "const": size, "side": "right"}))
        bid = self.add(Node("bid", "int32", ()))
        base = self.add(Node("binary", "int32", (), (bid,), {"fn": "mul", "const": size,
                                                             "side": "right"}))
        index = self.add(Node("binary", "int32", (size,), (perm, base), {"fn": "add"}))
        mask = self.pick(lambda m: m.dtype == "bool_" and m.exact and
                         _broadcasts_into(m.shape, (size,)))
        extent = max(1, self.grid * size - r.choice((0, 1, 3)))
        a = self.array("scatter", n.dtype, (extent,))
        self.outputs.append(Output("scatter", a, v, index, mask if r.random() < 0.6 else None))

    def atomic(self) -> None:
        """Integer atomics on repeated positions: the result does not depend on the order."""
        r = self.rng
        size = r.choice((4, 8, 16))
        fn = r.choice(("add", "max", "min"))
        dtype = r.choice(("int32", "int64", "uint32")) if fn != "add" else r.choice(
            ("int32", "uint64", "int64"))
        v = self.pick(lambda n: int(np.prod(n.shape)) == size and n.exact and
                      _castable(n, dtype))
        if v is None:
            return
        v = self.convert(v, dtype)
        if self.nodes[v].shape != (size,):
            v = self.add(Node("reshape", dtype, (size,), (v,), {}))
        ramp = self.add(Node("arange", "int32", (size,)))
        slots = r.choice((1, 3, 4))
        index = self.add(Node("binary", "int32", (size,), (ramp,),
                              {"fn": "mod", "const": slots, "side": "right"}))
        a = self.array("atomic", dtype, (slots,))
        self.outputs.append(Output("atomic", a, v, index, fn=fn))

    # ----- whole programs ---------------------------------------------------------------------

    def program(self, size: int | None = None) -> Program:
        r = self.rng
        for _ in range(r.randint(1, 3)):
            self.load(r.choice(self.main))
        if r.random() < 0.3:
            self.add(Node("bid", "int32", ()))
        ops = [(self.binary, 8), (self.unary, 3), (self.where, 2), (self.astype, 3),
               (self.reduce, 3), (self.scan, 1), (self.shape_op, 2), (self.gather, 1),
               (self.mma, 0.4), (self.kloop, 0.25), (self.mloop, 0.25), (self.loop, 1),
               (self.branch, 1),
               (lambda: self.load(r.choice(self.main)), 1)]
        steps = size if size is not None else r.randint(2, 10)
        for _ in range(steps):
            r.choices([f for f, _ in ops], [w for _, w in ops])[0]()
        for i in self._output_nodes():
            self.store(i)
        if r.random() < 0.2:
            self.scatter()
        if r.random() < 0.15:
            self.atomic()
        # drawn last, so that a seed's program is the same but for them
        launched = r.randint(1, self.grid) if r.random() < 0.25 else 0
        return Program(self.seed, self.grid, self.arrays, self.nodes, self.outputs,
                       self.scalars, launched, self._hints())

    def _hints(self) -> dict[str, int]:
        """One program in eight asks for its warps (2, 4 or 8: wgmma needs whole warpgroups,
        so 2 takes mma.sync), one in six for two or three blocks an SM (register caps, fewer
        ring stages, hints that give way to accumulators or shared memory)."""
        r, hints = self.rng, {}
        if r.random() < 0.125:
            hints["num_warps"] = r.choice((2, 4, 8))
        if r.random() < 1 / 6:
            hints["occupancy"] = r.choice((2, 3))
        return hints

    def _output_nodes(self) -> list[int]:
        """Every value no other node uses (so no computed node goes unchecked), at most five,
        every loop's that no other node uses (the K and masked loops: left unstored, the
        compiler drops them, and the paths they are there for go untested), and one more at
        random."""
        used = {a for n in self.nodes for a in n.args}
        sinks = [i for i, n in enumerate(self.nodes) if i not in used and
                 n.op not in ("bid", "scalar", "full", "arange")]
        loops = {i for i in sinks if self.nodes[i].op in ("kloop", "mloop")}
        chosen = set(sinks[-5:]) | loops | {self.rng.randrange(len(self.nodes))}
        return sorted(i for i in chosen if self.nodes[i].op not in ("bid", "scalar"))


def generate(seed: int) -> Program:
    return Generator(seed).program()


# ----- typing rules (docs/language.md, "Dtype promotion" and "Element-wise") ------------------


def _binary_ok(fn: str, dtype: str) -> bool:
    if fn in BITWISE:
        return dtype in INTS or dtype == "bool_"
    if fn in SHIFTS:
        return dtype in INTS
    if fn in COMPARE:
        return dtype != "bool_"
    return dtype in NUMERIC


def _continuous(fn: str) -> bool:
    return fn in ("add", "sub", "mul", "truediv", "minimum", "maximum")


def _unary_ok(fn: str, n: Node) -> bool:
    if fn == "bitwise_not":
        return n.dtype in INTS or n.dtype == "bool_"
    if fn in ("abs", "negative"):
        return n.dtype in NUMERIC
    if fn in ("floor", "ceil", "isnan"):
        return n.dtype in FLOATS and n.dtype not in FLOAT8 and n.exact
    return n.dtype in FLOATS and n.dtype not in FLOAT8 and (n.exact or fn in INEXACT_MATH)


def _paddings(dtype: str) -> tuple[str, ...]:
    """The padding modes the docs define for `dtype` (bools and float8_e4m3fn, which has no
    infinities, take the zeros only)."""
    if dtype in ("bool_", "float8_e4m3fn"):
        return ("ZERO", "UNDETERMINED")
    return PADDINGS


def _castable(n: Node, dtype: str) -> bool:
    """Conversions the fuzzer checks: any, except inexact values to integers or bools (the
    result would magnify the open last bits) and wide integers to the narrow floats (the
    reference rounds through float64)."""
    if n.dtype == dtype:
        return True
    if not n.exact and kind(dtype) != "f":
        return False
    if n.dtype in INTS and bits(n.dtype) > 16 and (dtype in HALF or dtype in FLOAT8):
        return False
    return not (not n.exact and dtype in FLOAT8)


def _broadcasts_into(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return tuple(np.broadcast_shapes(shape, target)) == tuple(target)
    except ValueError:
        return False


def _factorizations(size: int) -> list[tuple[int, ...]]:
    shapes: list[tuple[int, ...]] = [(size,)]
    for a in range(2, size):
        if size % a == 0:
            shapes.append((a, size // a))
            for b in range(2, size // a):
                if (size // a) % b == 0:
                    shapes.append((a, b, size // a // b))
    return shapes


def _constant(r: random.Random, dtype: str, fn: str) -> int | float | bool | None:
    """A loose constant that takes `dtype` (same category, representable)."""
    k = kind(dtype)
    if k == "b" or dtype in FLOAT8:
        return None
    if k == "f":
        return r.choice((0.0, 1.0, -1.5, 2.0, 0.25, 3.0))
    low, high = (0, 2 ** bits(dtype) - 1) if k == "u" else (-(2 ** (bits(dtype) - 1)),
                                                           2 ** (bits(dtype) - 1) - 1)
    if fn in SHIFTS:
        return r.choice((0, 1, 3, bits(dtype) - 1, bits(dtype)))
    return max(low, min(high, r.choice((0, 1, 2, 3, -1, -7, 100, high, low))))
