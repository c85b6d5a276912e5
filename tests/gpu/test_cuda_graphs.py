"""CUDA-graph capture of tilelang launches with torch: compiled inside or before the capture,
replayed with new input values, and nothing tilelang does at any time (a compile error, the
garbage collector dropping a kernel) breaks a capture or torch after it."""

from __future__ import annotations

import gc

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")


def make_axpy():
    @ct.kernel
    def axpy(x, y, out, alpha: float, BLOCK: ct.Constant[int]):
        i = ct.bid(0)
        a = ct.load(x, (i,), (BLOCK,))
        b = ct.load(y, (i,), (BLOCK,))
        ct.store(out, (i,), a * alpha + b)

    return axpy


def launch_axpy(kernel, x, y, out, alpha=2.0, block=256):
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], block),), kernel,
              (x, y, out, alpha, block))


@pytest.mark.parametrize("warm", [False, True], ids=["compiled-in-capture", "warmed-up"])
def test_replay_sees_new_input_values(warm):
    n = 3001
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    kernel = make_axpy()
    if warm:
        launch_axpy(kernel, x, y, out)
        torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        launch_axpy(kernel, x, y, out)
    for _ in range(3):
        x.copy_(torch.randn(n, device="cuda"))
        y.copy_(torch.randn(n, device="cuda"))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x * 2.0 + y)


def test_a_kernel_collected_during_capture_leaves_the_capture_valid():
    # a kernel in a reference cycle: only the cycle collector frees it (and its module)
    dropped = make_axpy()
    cycle = [dropped]
    cycle.append(cycle)
    x, y = torch.randn(700, device="cuda"), torch.randn(700, device="cuda")
    out = torch.empty_like(x)
    launch_axpy(dropped, x, y, out)
    torch.cuda.synchronize()
    del dropped, cycle
    kernel = make_axpy()
    launch_axpy(kernel, x, y, out)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        gc.collect()  # the dropped kernel goes now, mid-capture
        launch_axpy(kernel, x, y, out)
    out.zero_()
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x * 2.0 + y)
    torch.rand(4, device="cuda")  # torch's RNG still works outside a capture


def test_a_graph_outlives_its_kernel_object():
    x, y = torch.randn(513, device="cuda"), torch.randn(513, device="cuda")
    out = torch.empty_like(x)
    kernel = make_axpy()
    launch_axpy(kernel, x, y, out)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        launch_axpy(kernel, x, y, out)
    del kernel
    gc.collect()
    out.zero_()
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x * 2.0 + y)


@ct.kernel
def uses_a_missing_op(x):
    t = ct.load(x, (0,), (16,))
    ct.store(x, (0,), ct.no_such_op(t))


def test_a_compile_error_inside_a_capture_leaves_torch_healthy():
    x = torch.zeros(16, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(ct.TileError, match="no_such_op"), torch.cuda.graph(graph):
        ct.launch(torch.cuda.current_stream(), (1,), uses_a_missing_op, (x,))
    torch.rand(4, device="cuda")  # no capture left open: the RNG works
    test_replay_sees_new_input_values(warm=False)


@ct.kernel
def copy_lists(sources, targets, N: ct.Constant[int]):
    for i in range(len(sources)):
        ct.store(targets[i], (ct.bid(0),), ct.load(sources[i], (ct.bid(0),), (N,)))


def test_list_arguments_in_a_graph():
    # cuTile refuses list arguments under capture; tilelang passes them as kernel parameters
    xs = [torch.randn(1000, device="cuda") for _ in range(3)]
    ys = [torch.full_like(x, float("nan")) for x in xs]
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(1000, 128),), copy_lists, (xs, ys, 128))
    graph.replay()
    torch.cuda.synchronize()
    for x, y in zip(xs, ys, strict=True):
        torch.testing.assert_close(y, x)
