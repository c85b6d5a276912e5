"""Front end: frozen dataclass instances and Enum classes in kernels.

A dataclass instance in a kernel is a real instance of the user's class whose fields hold the
front end's values (constants, tiles, arrays, tuples...). Constructing one runs no Python: the
arguments are bound to the generated `__init__`'s signature and `__post_init__` (if any) is
compiled like a helper. Methods, properties, `__call__`, `__getitem__` and `__setitem__` are
inlined with `self` bound to the instance. The rules and messages are cuTile's.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from tilelang.errors import TileTypeError, TileValueError, did_you_mean
from tilelang.frontend import build
from tilelang.frontend.binding import bind
from tilelang.frontend.emitter import HOOKS
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue
from tilelang.interface.arguments import (  # the front end's name for it too
    DataclassInstance,
    is_instance,
)

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


@dataclass(frozen=True)
class BoundUserMethod:
    """`instance.method` before it is called: the function and its `self`."""

    fn: types.FunctionType
    receiver: object


def is_dataclass_type(value: object) -> TypeGuard[type[DataclassInstance]]:
    return isinstance(value, type) and dataclasses.is_dataclass(value) and \
        not value.__module__.startswith("tilelang.")


def check_frozen(value: object) -> None:
    """Instances (also inside tuples) must be of frozen classes: they are compile-time values."""
    if isinstance(value, tuple):
        for item in value:
            check_frozen(item)
    elif is_instance(value) and not type(value).__dataclass_params__.frozen:
        raise TileTypeError("Only frozen dataclasses are supported",
                            hint=f"declare {type(value).__qualname__} with "
                                 "@dataclass(frozen=True)")


def _check_class(cls: type) -> None:
    if "__dataclass_fields__" not in cls.__dict__:
        raise TileTypeError("Non-dataclass subclasses of a dataclass are not supported")
    if not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TileTypeError("Only frozen dataclasses are supported",
                            hint=f"declare {cls.__qualname__} with @dataclass(frozen=True)")
    if any("__new__" in c.__dict__ for c in cls.__mro__ if c is not object):
        raise TileTypeError("Dataclasses with custom __new__ are not supported")
    if not _generated_init(cls):
        raise TileTypeError("Dataclass instance creation is only supported for dataclasses "
                            "with a default generated __init__() method")
    for f in dataclasses.fields(cls):
        if not f.init:
            raise TileTypeError("Dataclasses with init=False fields are not supported")
        if f.default_factory is not dataclasses.MISSING:
            raise TileTypeError("Dataclasses with default_factory fields are not supported")


def _generated_init(cls: type) -> bool:
    init = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    return code is not None and code.co_filename == "<string>"  # dataclasses exec()s it


def construct(em: Emitter, cls: type, args: list[Any], kwargs: dict[str, Any]) -> object:
    """`cls(*args, **kwargs)` in a kernel."""
    _check_class(cls)
    bound = bind(cls.__name__, inspect.signature(cls), args, kwargs)
    bound.apply_defaults()
    instance = make_instance(cls, bound.arguments)
    post_init = getattr(cls, "__post_init__", None)
    if isinstance(post_init, types.FunctionType):
        _inline(em, post_init, [instance], {})
    return instance


def make_instance(cls: type, fields: dict[str, Any]) -> object:
    """An instance of `cls` holding `fields`, made without running its `__init__`."""
    instance: object = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(instance, name, value)
    return instance


def replace(em: Emitter, instance: object, args: list[Any], changes: dict[str, Any]) -> object:
    """`dataclasses.replace(instance, **changes)`."""
    if args or not is_instance(instance):
        raise TileTypeError("dataclasses.replace() takes a dataclass instance and keyword "
                            "arguments")
    cls = type(instance)
    names = [f.name for f in dataclasses.fields(cls)]
    for name in changes:
        if name not in names:
            raise TileTypeError(f"Dataclass '{cls.__name__}' has no such field '{name}'")
    fields = {name: changes.get(name, getattr(instance, name)) for name in names}
    return construct(em, cls, [], fields)


def attribute(em: Emitter, instance: DataclassInstance, name: str) -> object:
    """A field, a class constant, a property's value (its getter inlined) or a bound method."""
    cls = type(instance)
    if name in {f.name for f in dataclasses.fields(cls)}:
        return getattr(instance, name)
    try:
        found = inspect.getattr_static(cls, name)
    except AttributeError:
        names = [f.name for f in dataclasses.fields(cls)] + [n for n in dir(cls) if n[0] != "_"]
        raise TileTypeError(f"{cls.__name__} has no attribute `{name}`"
                            f"{did_you_mean(name, names)}") from None
    if isinstance(found, property):
        return _inline(em, found.fget, [instance], {})  # type: ignore[arg-type]
    if isinstance(found, staticmethod):
        return found.__func__
    if isinstance(found, classmethod):
        return BoundUserMethod(found.__func__, cls)  # type: ignore[arg-type]
    if isinstance(found, types.FunctionType):
        return BoundUserMethod(found, instance)
    return getattr(cls, name)


def call_method(em: Emitter, method: BoundUserMethod, args: list[Any],
                kwargs: dict[str, Any]) -> object:
    return _inline(em, method.fn, [method.receiver, *args], kwargs)


def call_instance(em: Emitter, instance: object, args: list[Any], kwargs: dict[str, Any]) -> object:
    """`instance(...)`: its class's `__call__`."""
    fn = inspect.getattr_static(type(instance), "__call__", None)
    if not isinstance(fn, types.FunctionType):
        raise TileTypeError(f"Cannot call an object of type {type(instance).__name__}")
    return _inline(em, fn, [instance, *args], kwargs)


def getitem(em: Emitter, instance: object, index: object) -> object:
    fn = getattr(type(instance), "__getitem__", None)
    if not isinstance(fn, types.FunctionType):
        raise TileTypeError(f"{type(instance).__name__} cannot be indexed")
    return _inline(em, fn, [instance, index], {})


def setitem(em: Emitter, instance: object, index: object, value: object) -> None:
    fn = getattr(type(instance), "__setitem__", None)
    if not isinstance(fn, types.FunctionType):
        raise TileTypeError(f"{type(instance).__name__} does not support item assignment")
    _inline(em, fn, [instance, index, value], {})


def _inline(em: Emitter, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any]) -> object:
    return HOOKS["inline"](em, fn, args, kwargs)  # calls.inline


# ----- Enum classes --------------------------------------------------------------------------


def call_enum(cls: type[enum.Enum], args: list[Any], kwargs: dict[str, Any]) -> enum.Enum:
    """`Color(1)`: the member with that value, looked up while compiling."""
    if kwargs or len(args) != 1:
        raise TileTypeError(f"{cls.__name__}() takes exactly one value in a kernel")
    value = args[0]
    if isinstance(value, TileValue):
        known = build.constant_value(value)
        if known is None:
            raise TileTypeError(f"{cls.__name__}() needs a compile-time constant value, got "
                                f"{describe(value)}")
        value = known
    try:
        return cls(value)
    except ValueError as e:
        raise TileValueError(str(e)) from None
    except TypeError as e:
        raise TileTypeError(str(e)) from None
