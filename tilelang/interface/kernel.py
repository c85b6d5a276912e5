"""Interface: the `@kernel` decorator and the `Kernel` object: a function, its options, its
parameters, the signature arguments select; the runtime's caches live in runtime/state.py."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypedDict, overload

from tilelang.errors import TileArgumentError
from tilelang.interface import hints
from tilelang.interface.arguments import spec_of
from tilelang.interface.exported import EXPORTER, Exported
from tilelang.interface.parameters import Parameter, check_arity, kernel_parameters
from tilelang.interface.specs import ParamSpec
from tilelang.language.by_target import ByTarget

if TYPE_CHECKING:
    from typing_extensions import Unpack



@dataclass(frozen=True)
class KernelOptions:
    """A kernel's options (hints). Each but `interpret` may be a `ByTarget`: `for_arch` gives
    the plain values of one architecture (interface/hints.py checks and resolves them)."""

    num_warps: int | ByTarget[int] | None = None  # None: chosen by compiler.choose_num_warps
    interpret: bool | None = None  # None: follow TILELANG_INTERPRET
    num_ctas: int | ByTarget[int] | None = None  # accepted for cuTile (one CTA per block)
    occupancy: int | ByTarget[int] | None = None  # blocks per SM to allow for (.minnctapersm)
    opt_level: int | ByTarget[int] = 3
    num_worker_warps: int | ByTarget[int] | None = None  # cuTile's name of num_warps

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            hints.check_option(name, getattr(self, name))

    def for_arch(self, arch: str) -> hints.TargetHints:
        """The plain values of these options for `arch` ("sm_90"): every ByTarget resolved."""
        return hints.for_arch(self, arch)


class KernelHints(TypedDict, total=False):
    """The keyword arguments of `@kernel(...)` and `replace_hints`: KernelOptions' fields."""

    num_warps: int | ByTarget[int] | None
    interpret: bool | None
    num_ctas: int | ByTarget[int] | None
    occupancy: int | ByTarget[int] | None
    opt_level: int | ByTarget[int]
    num_worker_warps: int | ByTarget[int] | None


class Kernel:
    """A tile kernel: a Python function compiled per signature and launched with `launch`."""

    __tilelang_kernel__ = True

    def __init__(self, fn: Callable[..., Any], options: KernelOptions):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError(f"@tilelang.kernel expects a function, got {fn!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.options = options
        self.name = fn.__name__
        self._params: tuple[Parameter, ...] | None = None
        # The two dispatch slots the hot path reads (runtime/launch.py, runtime/native/launch.c);
        # everything else the runtime keeps for this kernel is in runtime/state.py's KernelState.
        # the fast path generated on the first GPU launch (runtime/fast_path.py)
        self.fast_launch: Callable[[Any, Any, Any], None] | None = None
        # what the C hot path checks and launches: the last specialization (gpu_launch.py)
        self.native_entry: tuple[Any, ...] | None = None
        self.interpret = options.interpret
        self._variants: dict[KernelOptions, Kernel] = {}  # replace_hints' copies
        # held while a specialization is compiled and put in the runtime's record of the
        # kernel (runtime/launch.py, runtime/build.py): threads that launch one cold
        # specialization at once compile it once, and a launch never sees an entry half built;
        # warm launches do not take it
        self.lock = threading.RLock()

    @property
    def _pyfunc(self) -> Callable[..., Any]:
        """The Python function (cuTile's name for it: `ct.kernel(k._pyfunc)` copies a kernel)."""
        return self.fn

    @property
    def params(self) -> tuple[Parameter, ...]:
        if self._params is None:
            self._params = kernel_parameters(self.fn)
        return self._params

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            f"kernel {self.name} cannot be called directly; "
            f"use tilelang.launch(stream, grid, {self.name}, args)"
        )

    def __repr__(self) -> str:
        return f"<tilelang kernel {self.name}>"

    def specialize(self, args: Sequence[Any]) -> tuple[ParamSpec, ...]:
        """The signature these arguments select."""
        if not isinstance(args, tuple | list):
            raise TileArgumentError(
                f"kernel arguments must be a tuple, got {type(args).__name__}",
                hint="write (x,) for a single argument",
            )
        check_arity(self.name, self.params, len(args))
        return tuple(spec_of(p, a, i, self.name)
                     for i, (p, a) in enumerate(zip(self.params, args, strict=True)))

    def export(self, directory: str | os.PathLike[str], *signature: object,
               **options: Any) -> Exported:
        """Compile one specialization ahead of time into `directory`: cubin, PTX, a JSON
        description and a C header for a C program (tilelang.export.export; docs/export.md)."""
        (exporter,) = EXPORTER  # installed by the package root (interface/exported.py)
        return exporter(self, directory, *signature, **options)

    def replace_hints(self, **hints: Unpack[KernelHints]) -> Kernel:
        """A copy of this kernel with other options (and its own cache).

        The copy is remembered per options, so calling this at every launch (or per autotuning
        config) reuses one compiled copy instead of compiling a new one each time."""
        unknown = sorted(set(hints) - set(KernelOptions.__dataclass_fields__))
        if unknown:
            raise TypeError(f"replace_hints: unknown hint {unknown[0]!r}; the hints are "
                            f"{', '.join(KernelOptions.__dataclass_fields__)}")
        options = KernelOptions(**{**self.options.__dict__, **hints})
        variant = self._variants.get(options)
        if variant is None:
            with self.lock:  # one copy per options, whichever thread asks first
                variant = self._variants.setdefault(options, Kernel(self.fn, options))
        return variant


@overload
def kernel(fn: Callable[..., Any], /, **options: Unpack[KernelHints]) -> Kernel: ...
@overload
def kernel(fn: None = None, /,
           **options: Unpack[KernelHints]) -> Callable[[Callable[..., Any]], Kernel]: ...
def kernel(fn: Callable[..., Any] | None = None, /,
           **options: Unpack[KernelHints]) -> Kernel | Callable[[Callable[..., Any]], Kernel]:
    """Decorate a function as a tile kernel: `@kernel` or `@kernel(num_warps=8)`.

    Example:
        >>> @tilelang.kernel
        ... def add(a, b, c, BLOCK: tilelang.Constant[int]):
        ...     i = tilelang.bid(0)
        ...     x = tilelang.load(a, index=(i,), shape=(BLOCK,))
        ...     y = tilelang.load(b, index=(i,), shape=(BLOCK,))
        ...     tilelang.store(c, index=(i,), tile=x + y)
    """
    try:
        opts = KernelOptions(**options)
    except TypeError as e:
        raise TypeError(f"@tilelang.kernel: {e}") from None
    if fn is None:
        return lambda f: Kernel(f, opts)
    return Kernel(fn, opts)


def as_kernel(obj: object) -> Kernel:
    if isinstance(obj, Kernel):
        return obj
    if callable(obj) and hasattr(obj, "__code__"):
        return Kernel(obj, KernelOptions())
    raise TileArgumentError(f"expected a @tilelang.kernel function, got {obj!r}")
