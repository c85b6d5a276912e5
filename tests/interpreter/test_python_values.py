"""Python values inside kernels: frozen dataclasses (construction, fields, methods, properties,
dunders, dataclasses.replace), Enum members and classes, dicts (helpers' **kwargs), and tuples
compared with ==, != and `in` when they hold run-time scalars."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import tilelang as ct


@dataclass(frozen=True)
class Affine:
    scale: Any
    shift: Any = 0

    UNIT = 1.0  # a class constant, not a field

    def apply(self, t):
        return t * self.scale + self.shift

    @property
    def doubled(self):
        return Affine(self.scale * 2, self.shift * 2)

    def __call__(self, t):
        return self.apply(t)

    def __getitem__(self, i):
        return (self.scale, self.shift)[i]


@dataclass(frozen=True)
class Shifted(Affine):
    extra: Any = 0

    def apply(self, t):  # overrides the base class's method
        return t * self.scale + self.shift + self.extra


@dataclass(frozen=True)
class Recorder:
    out: Any

    def __setitem__(self, i, value):
        ct.store(self.out, (i,), ct.full((4,), value, ct.float32))


@dataclass(frozen=True)
class Checked:
    out: Any
    value: Any

    def __post_init__(self):
        ct.store(self.out, (0,), ct.full((4,), self.value, ct.float32))


@ct.kernel
def dataclass_values(x, out, rec_out, post_out, a):
    b = ct.bid(0)
    t = ct.load(x, (b,), (4,))
    f = Affine(a, shift=0.5)
    g = dataclasses.replace(f, shift=f.shift + 1)
    h = Shifted(2.0, 1.0, extra=f.UNIT)
    ct.store(out, (b * 4,), f.apply(t))
    ct.store(out, (b * 4 + 1,), g(t))  # __call__
    ct.store(out, (b * 4 + 2,), f.doubled.apply(t) + f[1])  # property, __getitem__
    ct.store(out, (b * 4 + 3,), h(t) + Affine.UNIT)  # the subclass's apply
    rec = Recorder(rec_out)
    rec[b] = a * 10  # __setitem__
    Checked(post_out, 7.0)  # __post_init__ runs


def test_dataclasses_in_kernels(it, rng):
    x = it.rand(rng, 12, "float32")
    out = it.poison(48, np.float32)
    rec, post = it.poison(12, np.float32), it.poison(4, np.float32)
    it.launch(dataclass_values, (3,), x, out, rec, post, 1.5)
    t = x.reshape(3, 4)
    f32 = np.float32
    want = np.stack([t * f32(1.5) + f32(0.5), t * f32(1.5) + f32(1.5),
                     t * f32(3.0) + f32(1.0) + f32(0.5), t * f32(2) + f32(1) + f32(1) + f32(1)],
                    axis=1).reshape(48)
    it.assert_same(out, want)
    it.assert_same(rec, np.full(12, 15.0, np.float32))
    it.assert_same(post, np.full(4, 7.0, np.float32))


@ct.kernel
def nested_and_static(out):
    fb = Affine(2, shift=Affine(30, 40))
    swapped = ct.static_eval(Affine(fb.shift.shift, fb.shift.scale))
    ct.store(out, (0,), ct.full((4,), fb.scale + fb.shift.scale * swapped.scale, ct.int32))


def test_nested_dataclass_and_static_eval(it):
    out = it.poison(4, np.int32)
    it.launch(nested_and_static, (1,), out)
    it.assert_same(out, np.full(4, 2 + 30 * 40, np.int32))


def compile_error(fn: Any, error: type, message: str, *args: Any) -> None:
    with pytest.raises(error) as info:
        ct.launch(None, (1,), ct.kernel(fn, interpret=True), args)
    assert message in str(info.value)


@dataclass
class Thawed:
    a: Any


@dataclass(frozen=True, init=False)
class NoInit:
    a: Any


@dataclass(frozen=True)
class CustomNew:
    a: Any

    def __new__(cls, *args):
        return object.__new__(cls)


class PlainSubclass(Affine):
    pass


@dataclass(frozen=True)
class FactoryField:
    a: Any = dataclasses.field(default_factory=list)


def make_thawed():
    Thawed(1)


def thawed_from_static_eval():
    ct.static_eval(Thawed(1))


def make_no_init():
    NoInit()


def make_custom_new():
    CustomNew(1)


def make_plain_subclass():
    PlainSubclass(1)


def make_factory_field():
    FactoryField()


def replace_unknown_field():
    dataclasses.replace(Affine(1), abc=2)


def read_missing_attribute():
    return Affine(1).missing


def missing_argument():
    Affine()


def call_without_dunder():
    Recorder(1)(2)


@pytest.mark.parametrize(("fn", "message"), [
    (make_thawed, "Only frozen dataclasses are supported"),
    (thawed_from_static_eval, "Only frozen dataclasses are supported"),
    (make_no_init, "only supported for dataclasses with a default generated __init__() method"),
    (make_custom_new, "Dataclasses with custom __new__ are not supported"),
    (make_plain_subclass, "Non-dataclass subclasses of a dataclass are not supported"),
    (make_factory_field, "Dataclasses with default_factory fields are not supported"),
    (replace_unknown_field, "Dataclass 'Affine' has no such field 'abc'"),
    (read_missing_attribute, "Affine has no attribute `missing`"),
    (missing_argument, "Affine(): missing a required argument: 'scale'"),
    (call_without_dunder, "Cannot call an object of type Recorder"),
])
def test_dataclass_errors(fn, message):
    compile_error(fn, ct.TileTypeError, message)


# ----- enums ---------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = 0
    GREEN = 1
    BLUE = 2


class Level(enum.IntEnum):
    LOW = 0
    HIGH = 2


@ct.kernel
def enum_values(out, C: ct.Constant):
    i = 1
    chosen = Color(i)  # a member looked up while compiling
    code = 0
    if chosen == Color.GREEN and C != Color.RED and Level.LOW < Level.HIGH:
        code = 100
    if C.name == "BLUE":
        code += C.value
    ct.store(out, (0,), ct.full((4,), code + Level(2), ct.int32))


@pytest.mark.parametrize(("member", "want"), [(Color.BLUE, 104), (Color.GREEN, 102)])
def test_enums(it, member, want):
    out = it.poison(4, np.int32)
    it.launch(enum_values, (1,), out, member)
    it.assert_same(out, np.full(4, want, np.int32))


def color_99():
    Color(99)


def color_from_string():
    Color("red")


def color_at_run_time():
    Color(ct.bid(0))


def order_colors():
    return Color.RED < Color.BLUE


@pytest.mark.parametrize(("fn", "error", "message"), [
    (color_99, ct.TileValueError, "99 is not a valid Color"),
    (color_from_string, ct.TileValueError, "'red' is not a valid Color"),
    (color_at_run_time, ct.TileTypeError, "Color() needs a compile-time constant value"),
    (order_colors, ct.TileTypeError, "not supported between instances of 'Color'"),
])
def test_enum_errors(fn, error, message):
    compile_error(fn, error, message)


# ----- dicts ---------------------------------------------------------------------------------


def options(**kwargs):
    ct.static_assert(kwargs == {"scale": 3, "name": "x"})
    ct.static_assert("scale" in kwargs and "other" not in kwargs)
    ct.static_assert(kwargs.get("other") is None and kwargs.get("name") == "x")
    names = kwargs.keys()  # a tuple in a kernel
    ct.static_assert(names == ("scale", "name") and len(kwargs) == 2)
    return kwargs["scale"]


def forward(fn, **kwargs):
    return fn(**kwargs, offset=1)


def combine(scale, name, offset):
    return scale * 10 + offset


@ct.kernel
def dict_values(out):
    table = {"a": 1, **{"b": 2}}
    n = options(scale=3, name="x") + forward(combine, scale=4, name="y") + table["b"]
    ct.store(out, (0,), ct.full((4,), n, ct.int32))


def test_dicts_from_keyword_arguments(it):
    out = it.poison(4, np.int32)
    it.launch(dict_values, (1,), out)
    it.assert_same(out, np.full(4, 3 + 41 + 2, np.int32))


def missing_key(**kwargs):
    return kwargs["qux"]


def lookup_missing_key():
    missing_key(foo=1)


def run_time_key():
    return {"a": 1}[ct.bid(0)]


def double_star_tuple():
    combine(**(1, 2))


def double_star_twice():
    combine(1, **{"scale": 2})


@pytest.mark.parametrize(("fn", "message"), [
    (lookup_missing_key, "Key 'qux' not found in dictionary"),
    (run_time_key, "dict keys must be compile-time constants"),
    (double_star_tuple, "argument after ** must be a dict with string keys"),
    (double_star_twice, "multiple values for argument 'scale'"),
])
def test_dict_errors(fn, message):
    compile_error(fn, ct.TileTypeError, message)


# ----- tuples --------------------------------------------------------------------------------


@ct.kernel
def tuple_comparisons(out):
    a, b = ct.bid(0), ct.bid(1)
    code = 0
    if (a, b) == (0, 1):
        code += 1
    if ((a, 1), b) != ((2, 1), 0):
        code += 2
    if a in (1, 2):
        code += 4
    if (a, b) in ((0, 0), (2, 1)):
        code += 8
    if b not in (1,):
        code += 16
    if (a, 1) != (a, 1, 2) and 2 in (2, ct.zeros((4,), ct.int32)):  # decided while compiling
        code += 32
    ct.store(out, (a, b), ct.full((1, 1), code, ct.int32))


def test_tuple_comparisons_with_run_time_scalars(it):
    out = it.poison((3, 2), np.int32)
    it.launch(tuple_comparisons, (3, 2), out)
    want = np.zeros((3, 2), np.int32) + 32
    want[0, 1] += 1
    want += 2
    want[2, 0] -= 2
    want[1:, :] += 4
    want[0, 0] += 8
    want[2, 1] += 8
    want[:, 0] += 16
    it.assert_same(out, want)


def index_with_float():
    i = 1.0
    return (1, 2, 3)[i]


def index_with_tile():
    return (1, 2, 3)[ct.ones((2,), ct.int32)]


def index_at_run_time():
    return (1, 2, 3)[ct.bid(0)]


def index_with_tuple():
    i = (0, 1)
    return (1, 2, 3)[i]


def index_out_of_range():
    return (1, 2, 3)[3]


def order_tuples():
    return (1, 2) < (3, 4)


def compare_tile_items():
    return (ct.ones((4,), ct.int32),) == (1,)


def tile_in_haystack():
    return 2 in (1, ct.ones((4,), ct.int32), 2)


@pytest.mark.parametrize(("fn", "error", "message"), [
    (index_with_float, ct.TileTypeError, "Tuple indices must be integers or slices"),
    (index_with_tile, ct.TileTypeError, "Tuple indices must be integers or slices"),
    (index_at_run_time, ct.TileTypeError, "Tuple indices must be constant"),
    (index_with_tuple, ct.TileTypeError, "Tuple indices must be integers or slices"),
    (index_out_of_range, ct.TileValueError, "tuple index 3 out of range"),
    (order_tuples, ct.TileTypeError, "Operator '<' is not supported for tuples"),
    (compare_tile_items, ct.TileTypeError, "not supported for non-scalar elements"),
    (tile_in_haystack, ct.TileTypeError, "'in' requires scalar operands"),
])
def test_tuple_errors(fn, error, message):
    compile_error(fn, error, message)


@ct.kernel(interpret=True)
def tuple_assignment():
    t = (1, 2, 3)
    t[0] = 7


@ct.kernel(interpret=True)
def array_assignment(x):
    x[0] = 1.0


@ct.kernel(interpret=True)
def compare_arrays(x, y):
    if (x,) == (y,):
        pass


@ct.kernel(interpret=True)
def unpack_too_few():
    a, b, c = 1, 2  # noqa: F841


@pytest.mark.parametrize(("kernel", "args", "error", "message"), [
    (tuple_assignment, (), ct.TileTypeError,
     "Tuples are immutable: item assignment is not supported"),
    (array_assignment, (np.zeros(4, np.float32),), ct.TileTypeError,
     "Arrays do not support item assignment. Use store() or scatter() instead."),
    (compare_arrays, (np.zeros(4, np.float32),) * 2, ct.TileTypeError,
     "not supported for elements of type 1-d float32 array"),
    (unpack_too_few, (), ct.TileValueError, "Too few values to unpack (expected 3, got 2)"),
])
def test_assignment_and_unpacking_errors(kernel, args, error, message):
    with pytest.raises(error) as info:
        ct.launch(None, (1,), kernel, args)
    assert message in str(info.value)
