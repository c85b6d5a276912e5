"""Front end: the registry mapping language functions (and some Python builtins) to emitters.

The emitter modules of this package register into it (`@lowers`); the package imports them all,
so that they import this module and not their package."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tilelang.errors import TileTypeError
from tilelang.frontend.binding import bind

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter
    from tilelang.frontend.values import BoundMethod


@dataclass(frozen=True)
class Builtin:
    name: str
    emit: Callable[..., Any]
    signature: inspect.Signature | None  # None: the emitter takes the raw arguments

    def call(self, em: Emitter, args: list[Any], kwargs: dict[str, Any]) -> object:
        effect = NOT_IN_COMBINERS.get(self.name)
        if effect is not None:
            em.not_in_combiner(effect)
        if self.signature is None:
            return self.emit(em, *args, **kwargs)
        bound = bind(self.name, self.signature, args, kwargs)
        bound.apply_defaults()
        try:
            return self.emit(em, **bound.arguments)
        except TileTypeError as error:
            self._name_argument(error)
            raise

    def _name_argument(self, error: TileTypeError) -> None:
        """Prefix an error about one of this call's arguments (semantics.invalid_argument)
        with the argument and the function, as cuTile words it; once, by the innermost call
        whose signature has that parameter."""
        param = getattr(error, "argument", None)
        if param is None or self.signature is None or param not in self.signature.parameters:
            return
        names = list(self.signature.parameters)
        kind = self.signature.parameters[param].kind
        label = f"#{names.index(param) + 1}" if kind is inspect.Parameter.POSITIONAL_ONLY \
            else f'"{param}"'
        function = self.name.rsplit(".", 1)[-1]
        error.message = f"Invalid argument {label} of {function}(): {error.message}"
        error.args = (error.message,)
        error.argument = None  # type: ignore[attr-defined]


_REGISTRY: dict[Any, Builtin] = {}
# builtins a reduce/scan combiner cannot call (by name): "memory" or "combining"
NOT_IN_COMBINERS: dict[str, str] = {}


def lowers(*fns: Any, raw: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated emitter for each language function in `fns`.

    The call's arguments are bound to the language function's signature, so the emitter gets
    every parameter by name with its documented default. `raw=True` passes them unbound.
    """

    def register(emit: Callable[..., Any]) -> Callable[..., Any]:
        for fn in fns:
            name = str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", fn))
            if fn in _REGISTRY:
                raise RuntimeError(f"two emitters registered for {name}")
            sig = None if raw else inspect.signature(fn)
            _REGISTRY[fn] = Builtin(name, emit, sig)
        return emit

    return register


def lookup(obj: object) -> Builtin | None:
    try:
        return _REGISTRY.get(obj)
    except TypeError:  # unhashable objects are never builtins
        return None


def registered() -> dict[Any, Builtin]:
    return dict(_REGISTRY)


def call_method(em: Emitter, method: BoundMethod, args: list[Any], kwargs: dict[str,
                Any]) -> object:
    """`tile.astype(...)` and friends: the language function with the tile as first argument."""
    from tilelang import language as lang

    if method.name == "item":
        if args or kwargs:
            raise TileTypeError("Tile.item() takes no arguments")
        shape = getattr(method.receiver, "shape", ())
        if any(d != 1 for d in shape):
            raise TileTypeError(f"Cannot reshape {shape} to ()",
                                hint="item() reads a tile of one element")
        args, fn = [()], lang.reshape
    else:
        fn = method.fn or getattr(lang, method.name)
    if method.name in ("reshape", "broadcast_to") and len(args) > 1:
        args = [tuple(args)]  # t.reshape(4, 8) as well as t.reshape((4, 8))
    entry = _REGISTRY[fn]
    return entry.call(em, [method.receiver, *args], kwargs)


