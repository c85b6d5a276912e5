"""Runtime: the raw CUstream handle of whatever stream object the user passed."""

from __future__ import annotations

from typing import Any

from tilelang.errors import TileArgumentError


def stream_handle(stream: object, args: tuple[Any, ...] = (), device: int | None = None) -> int:
    """A cuda.core / torch / CuPy stream, anything with `__cuda_stream__`, a raw int handle, or
    None (the current torch stream of `device` when torch tensors are passed, else the default
    stream)."""
    if stream is None:
        return _default_stream(args, device)
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attr in HANDLE_ATTRIBUTES:
        value = getattr(stream, attr, None)
        if value is not None:
            return int(value)
    raise not_a_stream(stream)


HANDLE_ATTRIBUTES = ("cuda_stream", "ptr", "handle")  # torch, CuPy, cuda.core


def check_stream(stream: object) -> None:
    """Refuse what `stream_handle` would refuse, without asking CUDA anything: the interpreter
    runs no stream but takes only what a GPU launch takes."""
    if stream is None or (isinstance(stream, int) and not isinstance(stream, bool)):
        return
    if hasattr(stream, "__cuda_stream__"):
        return
    if any(getattr(stream, attr, None) is not None for attr in HANDLE_ATTRIBUTES):
        return
    raise not_a_stream(stream)


def not_a_stream(stream: object) -> TileArgumentError:
    shown = repr(stream)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return TileArgumentError(
        f"cannot use {type(stream).__name__} {shown} as a CUDA stream; a stream is None (the "
        "current torch stream, else the default stream), a torch.cuda.Stream, a cuda.core "
        "Stream, a CuPy stream, an object with __cuda_stream__, or a raw CUstream handle (int)",
        hint="pass None to use the current stream (the interpreter runs no stream but takes "
             "only what a GPU launch takes)",
    )


# The default streams (the legacy one as 0 or CU_STREAM_LEGACY, and the per-thread one) are no
# device's: each means "of the context current when the launch is made".
DEFAULT_STREAM_HANDLES = (0, 1, 2)


def stream_device(stream: object) -> int | None:
    """The device ordinal of a torch or cuda.core stream object; None when it cannot tell, and
    for a default stream: torch's `current_stream()` of a device no one made current is its
    default stream, which means the current context's. The launch then runs on the arrays'
    device, as cuTile's does (it launches in the stream's context, cuStreamGetCtx, which for a
    default stream is the thread's current one, the arrays' device in a process that made them
    there), so a program that never calls torch.cuda.set_device works on every rank."""
    try:
        if stream_handle(stream) in DEFAULT_STREAM_HANDLES:
            return None
    except TileArgumentError:
        return None
    device = getattr(stream, "device", None)
    for attr in ("index", "device_id"):  # torch.device, cuda.core Device
        ordinal = getattr(device, attr, None)
        if isinstance(ordinal, int):
            return ordinal
    return None


def _default_stream(args: tuple[Any, ...], device: int | None) -> int:
    if any(type(a).__module__.startswith("torch") for a in args):
        import torch

        return int(torch.cuda.current_stream(device).cuda_stream)
    return 0
