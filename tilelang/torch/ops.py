"""PyTorch integration: `custom_op`: a host function that launches tilelang kernels, made a
`torch.library.custom_op` whose fake implementation is the same function run on fake tensors."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from tilelang.errors import TileArgumentError
from tilelang.runtime.launch import launch as tile_launch
from tilelang.torch.op_launch import launches_skipped
from tilelang.torch.output_checks import FakeComparison, check_output_devices

if TYPE_CHECKING:
    from torch.library import CustomOpDef

DEVICE_TYPES = ("cpu", "cuda")  # CUDA tensors run on the GPU, CPU tensors on the interpreter


def custom_op(
    name: str,
    fn: Callable[..., Any] | None = None,
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: str | Sequence[str] | None = DEVICE_TYPES,
    schema: str | None = None,
    tags: torch.Tag | Sequence[torch.Tag] | None = None,
    fake: Callable[..., Any] | None = None,
) -> CustomOpDef | Callable[[Callable[..., Any]], CustomOpDef]:
    """Make `fn`, a host function that allocates outputs and calls `tilelang.torch.launch`, a
    `torch.library.custom_op` named `name` ("namespace::op"); returns its `CustomOpDef`.

    The arguments are `torch.library.custom_op`'s (type hints on `fn` give the schema;
    `mutates_args` names every argument a kernel writes), plus `fake`: the fake (meta)
    implementation. Without it, the fake is `fn` itself run on fake tensors with its launches
    skipped, which is right whenever `fn` allocates its outputs from the inputs' shapes, dtypes
    and devices. A given `fake` is compared with the real outputs once per input signature.

    Example:
        >>> @tilelang.torch.custom_op("mylib::add", mutates_args=())
        ... def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        ...     out = torch.empty_like(x)
        ...     tilelang.torch.launch((ct.cdiv(x.numel(), 1024),), add_kernel, (x, y, out, 1024))
        ...     return out
    """
    def register(host: Callable[..., Any]) -> CustomOpDef:
        inferred = schema or _infer_schema(host, mutates_args, tags)
        derived = _derived_fake(name, host)
        comparison = FakeComparison(name)
        impl = _real_impl(name, host, comparison, lambda: op, derived)
        op = torch.library.custom_op(
            name, impl, mutates_args=_mutated(inferred), device_types=device_types,
            schema=inferred, tags=tags,
        )
        generated = getattr(op, "_is_inplace", False) or getattr(op, "_is_out", False)
        if not generated:  # ops tagged inplace or out get torch's own generated fake
            op.register_fake(fake if fake is not None else derived)
        return op

    return register if fn is None else register(fn)


def _infer_schema(host: Callable[..., Any], mutates_args: str | Iterable[str], tags: Any) -> str:
    """The schema from `host`'s own hints (they are read in `host`'s module). The tags go to
    `infer_schema` where it takes them (torch releases before that infer without them, and
    `custom_op` gets the tags either way)."""
    takes_tags = "tags" in inspect.signature(torch.library.infer_schema).parameters
    extra = {"tags": tags} if tags is not None and takes_tags else {}
    return torch.library.infer_schema(host, mutates_args=mutates_args, **extra)


def _mutated(schema: str) -> list[str]:
    """The names the schema marks as written ("unknown" resolved to every tensor argument)."""
    parsed = torch._C.parse_schema("op" + schema[schema.index("("):])
    return [a.name for a in parsed.arguments if a.alias_info is not None and a.alias_info.is_write]


def _real_impl(name: str, host: Callable[..., Any], comparison: FakeComparison,
               current_op: Callable[[], Any], derived: Callable[..., Any]) -> Callable[..., Any]:
    checked_on: set[Any] = set()  # devices (of the first tensor) whose outputs were checked

    @functools.wraps(host)
    def impl(*args: object, **kwargs: object) -> object:
        result = host(*args, **kwargs)
        device = _first_device(args)
        if device not in checked_on:  # once per device: a host function allocates alike
            check_output_devices(name, (args, kwargs), result)
            checked_on.add(device)
        if getattr(current_op(), "_abstract_fn", derived) is not derived:
            comparison.check((args, kwargs), result)  # a fake of the user's: does it agree?
        return result

    return impl


def _first_device(args: tuple[object, ...]) -> torch.device | None:
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.device
    return None


def _derived_fake(name: str, host: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(host)
    def fake(*args: object, **kwargs: object) -> object:
        with launches_skipped():
            try:
                result = host(*args, **kwargs)
            except Exception as e:
                if _raised_in(e, tile_launch):  # it launches on fake tensors: wrong launch
                    raise _needs_data(name) from e
                _explain(e, name)
                raise
        check_output_devices(name, (args, kwargs), result)
        return result

    return fake


def _raised_in(error: Exception, fn: Callable[..., Any]) -> bool:
    if fn.__code__ in getattr(error, "_internal_code", ()):  # its frames hidden from the user
        return True
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is fn.__code__:
            return True
        tb = tb.tb_next
    return False


def _needs_data(name: str) -> TileArgumentError:
    return TileArgumentError(
        f"custom op {name}: its host function calls tilelang.launch, which needs tensors with "
        "data, on fake tensors (while torch derives the op's fake implementation)",
        hint="launch kernels with tilelang.torch.launch(grid, kernel, args), which skips them on "
             "fake tensors, not tilelang.launch; or pass fake= to tilelang.torch.custom_op",
    )


def _explain(error: Exception, name: str) -> None:
    if hasattr(error, "add_note"):  # Python 3.11+
        error.add_note(
            f"(while running the host function of custom op {name} on fake tensors, which have "
            "shapes, dtypes and devices but no data, to derive its fake implementation: make "
            "it depend on those only, or pass fake= to tilelang.torch.custom_op)")
