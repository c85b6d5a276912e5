"""runtime/streams.stream_device: which device a stream object says it is on (the slow path
refuses arrays on another one), and default streams, which are no device's."""

from __future__ import annotations

from types import SimpleNamespace

from tilelang.runtime.streams import stream_device


def torch_like(handle: int, index: int) -> SimpleNamespace:
    return SimpleNamespace(cuda_stream=handle, device=SimpleNamespace(index=index))


def test_a_created_stream_is_on_its_device() -> None:
    assert stream_device(torch_like(0x5A5A00, 0)) == 0
    assert stream_device(torch_like(0x5A5A00, 3)) == 3


def test_default_streams_are_the_current_contexts_so_no_devices() -> None:
    for handle in (0, 1, 2):  # legacy (as 0 and CU_STREAM_LEGACY) and per-thread
        assert stream_device(torch_like(handle, 0)) is None


def test_objects_without_a_device_tell_nothing() -> None:
    assert stream_device(None) is None
    assert stream_device(0x5A5A00) is None
    assert stream_device(SimpleNamespace(ptr=0x5A5A00)) is None
