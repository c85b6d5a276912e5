"""tilelang.torch on the CPU: custom ops run their kernels on the interpreter for CPU tensors;
their derived fake implementation under FakeTensorMode (CUDA tensors included) and on meta
tensors; torch.compile(fullgraph=True), torch.export, autograd (gradcheck in float64),
mutated arguments, torch.library.opcheck; the errors of host functions and fakes."""

from __future__ import annotations

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")

from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.library import opcheck  # noqa: E402

import tilelang.torch as tlt  # noqa: E402  (needs torch)
from tilelang.runtime.state import state_of  # noqa: E402

BLOCK = 64


@ct.kernel
def mul_kernel(x, y, out, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, (i,), ct.load(x, (i,), (B,)) * ct.load(y, (i,), (B,)))


@ct.kernel
def mul_bwd_kernel(g, x, y, dx, dy, B: ct.Constant[int]):
    i = ct.bid(0)
    gt = ct.load(g, (i,), (B,))
    ct.store(dx, (i,), gt * ct.load(y, (i,), (B,)))
    ct.store(dy, (i,), gt * ct.load(x, (i,), (B,)))


@ct.kernel
def add_into_kernel(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(x, (i,), ct.load(x, (i,), (B,)) + ct.load(y, (i,), (B,)))


def grid(t: torch.Tensor) -> tuple[int]:
    return (ct.cdiv(t.shape[0], BLOCK),)


@tlt.custom_op("tilelang_tests::mul", mutates_args=())
def mul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    tlt.launch(grid(x), mul_kernel, (x, y, out, BLOCK))
    return out


@tlt.custom_op("tilelang_tests::mul_bwd", mutates_args=())
def mul_bwd(g: torch.Tensor, x: torch.Tensor,
            y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    dx, dy = torch.empty_like(x), torch.empty_like(y)
    tlt.launch(grid(x), mul_bwd_kernel, (g, x, y, dx, dy, BLOCK))
    return dx, dy


def setup_context(ctx, inputs, output) -> None:
    ctx.save_for_backward(*inputs)


def backward(ctx, g):
    return mul_bwd(g, *ctx.saved_tensors)


mul.register_autograd(backward, setup_context=setup_context)


@tlt.custom_op("tilelang_tests::add_into", mutates_args=("x",))
def add_into(x: torch.Tensor, y: torch.Tensor) -> None:
    tlt.launch(grid(x), add_into_kernel, (x, y, BLOCK))


@pytest.fixture(autouse=True)
def _no_interpret_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    """CPU tensors go to the interpreter by themselves, without TILELANG_INTERPRET."""
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)


@pytest.fixture
def rng() -> torch.Generator:
    return torch.Generator().manual_seed(1234)


def randn(n: int, rng: torch.Generator, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(n, generator=rng, dtype=torch.float64).to(dtype)


# The op on CPU tensors: the interpreter


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("n", [1, 63, 65, 1000])
def test_op_on_cpu_tensors_runs_the_interpreter(n: int, dtype: torch.dtype, rng) -> None:
    x, y = randn(n, rng, dtype), randn(n, rng, dtype)
    torch.testing.assert_close(mul(x, y), x * y, rtol=0, atol=0)


def test_empty_tensors_launch_nothing() -> None:
    empty = torch.empty(0)
    assert mul(empty, empty).shape == (0,)  # grid (0,): no launch, no error
    compiled = torch.compile(mul, fullgraph=True, backend="aot_eager")
    assert compiled(empty, empty).shape == (0,)


def test_op_on_strided_views(rng) -> None:
    x = randn(300, rng)
    torch.testing.assert_close(mul(x[::3], x[1::3]), x[::3] * x[1::3], rtol=0, atol=0)


def test_mutated_argument_is_written_in_place(rng) -> None:
    x, y = randn(130, rng), randn(130, rng)
    want = x + y
    add_into(x, y)
    torch.testing.assert_close(x, want, rtol=0, atol=0)


def test_launch_works_outside_an_op(rng) -> None:
    x, y = randn(100, rng), randn(100, rng)
    out = torch.full_like(x, float("nan"))
    tlt.launch(grid(x), mul_kernel, (x, y, out, BLOCK))
    torch.testing.assert_close(out, x * y, rtol=0, atol=0)


def bare_launch(x, y):
    out = torch.empty_like(x)
    tlt.launch(grid(x), mul_kernel, (x, y, out, BLOCK))
    return out + 1


def test_a_launch_outside_an_op_breaks_the_graph_and_still_runs(rng) -> None:
    x, y = randn(100, rng), randn(100, rng)
    explanation = torch._dynamo.explain(bare_launch)(x, y)
    assert explanation.break_reasons  # the launch, and nothing in the runtime behind it
    assert all("outside a custom op" in r.reason for r in explanation.break_reasons)
    compiled = torch.compile(bare_launch, backend="eager")
    torch.testing.assert_close(compiled(x, y), x * y + 1, rtol=0, atol=0)


def test_a_launch_outside_an_op_under_fullgraph_says_to_make_an_op(rng) -> None:
    compiled = torch.compile(bare_launch, backend="eager", fullgraph=True)
    with pytest.raises(torch._dynamo.exc.Unsupported,
                       match=r"launch kernels in the host function of a tilelang\.torch"):
        compiled(randn(10, rng), randn(10, rng))


def test_cpu_launches_reuse_one_interpreted_copy_of_the_kernel(rng) -> None:
    from tilelang.torch.op_launch import interpreted

    mul(randn(10, rng), randn(10, rng))
    copy = interpreted(mul_kernel)
    assert copy is interpreted(mul_kernel) and copy.options.interpret is True
    assert state_of(copy).interpreted  # compiled once, kept
    assert not state_of(mul_kernel).used  # the user's kernel itself is left as it was


# The derived fake implementation


def test_fake_under_fake_tensor_mode_gives_shapes_without_launching() -> None:
    @ct.kernel
    def never_run(x, y, out, B: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(out, (i,), ct.load(x, (i,), (B,)))

    @tlt.custom_op("tilelang_tests::fake_only", mutates_args=())
    def fake_only(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, stats = x.new_empty(x.shape[0] * 2), x.new_empty(3, dtype=torch.float64)
        tlt.launch(grid(x), never_run, (x, y, out, BLOCK))
        return out, stats

    with FakeTensorMode():
        x = torch.empty(77, dtype=torch.bfloat16, device="cuda")  # fake: no GPU needed
        out, stats = fake_only(x, x)
    assert (out.shape, out.dtype, out.device.type) == ((154,), torch.bfloat16, "cuda")
    assert (stats.shape, stats.dtype, stats.device.type) == ((3,), torch.float64, "cuda")
    assert not state_of(never_run).used  # nothing compiled, nothing launched


def test_fake_on_meta_tensors() -> None:
    x = torch.empty(1000, device="meta")
    out = mul(x, x)
    assert out.device.type == "meta" and out.shape == (1000,)
    assert add_into(x, x) is None


def test_fake_checks_the_launch_arguments_count() -> None:
    @tlt.custom_op("tilelang_tests::bad_arity", mutates_args=())
    def bad_arity(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        tlt.launch(grid(x), mul_kernel, (x, out, BLOCK))
        return out

    with FakeTensorMode(), pytest.raises(ct.TileArgumentError, match="Kernel expects 4"):
        bad_arity(torch.empty(10))
    with FakeTensorMode(), pytest.raises(ct.TileArgumentError, match="must be a tuple"):
        tlt.launch((1,), mul_kernel, [torch.empty(3)][0])


# torch.compile, torch.export, autograd


def compile_and_record(fn):
    """fn compiled with fullgraph=True through a backend that keeps each graph and runs it."""
    graphs = []

    def backend(gm: torch.fx.GraphModule, example_inputs):
        graphs.append(gm)
        return gm.forward

    return torch.compile(fn, fullgraph=True, backend=backend), graphs


def ops_in(gm: torch.fx.GraphModule) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def test_compile_fullgraph_keeps_the_op_in_one_graph(rng) -> None:
    def f(x, y):
        return mul(x, y) * 2 + 1

    compiled, graphs = compile_and_record(f)
    x, y = randn(300, rng), randn(300, rng)
    torch.testing.assert_close(compiled(x, y), (x * y) * 2 + 1)
    assert len(graphs) == 1
    assert "tilelang_tests.mul.default" in ops_in(graphs[0])


@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated")  # torch's own
def test_compile_with_inductor_calls_the_cpu_implementation(rng) -> None:
    compiled = torch.compile(mul, fullgraph=True)  # inductor: the op stays an extern call
    for n in (200, 333):  # a second size: recompiled with a dynamic size
        x, y = randn(n, rng), randn(n, rng)
        torch.testing.assert_close(compiled(x, y), x * y, rtol=0, atol=0)


def test_compile_with_a_mutated_argument(rng) -> None:
    def f(x, y):
        x = x.clone()
        add_into(x, y)
        return x

    compiled, graphs = compile_and_record(f)
    x, y = randn(129, rng), randn(129, rng)
    torch.testing.assert_close(compiled(x, y), x + y, rtol=0, atol=0)
    assert "tilelang_tests.add_into.default" in ops_in(graphs[0])


def test_compile_of_forward_and_backward(rng) -> None:
    def loss(x, y):
        return (mul(x, y) * 3).sum()

    compiled = torch.compile(loss, fullgraph=True, backend="aot_eager")
    x, y = randn(150, rng).requires_grad_(), randn(150, rng).requires_grad_()
    compiled(x, y).backward()
    torch.testing.assert_close(x.grad, 3 * y.detach(), rtol=0, atol=0)
    torch.testing.assert_close(y.grad, 3 * x.detach(), rtol=0, atol=0)


def test_gradcheck_in_float64(rng) -> None:
    x = randn(70, rng, torch.float64).requires_grad_()
    y = randn(70, rng, torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(mul, (x, y))


class Scale(torch.nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(-1, 1, n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return mul(x, self.weight) + 1


def test_export_keeps_the_op_and_runs(rng) -> None:
    model = Scale(100)
    x = randn(100, rng)
    exported = torch.export.export(model, (x,))
    assert "tilelang_tests.mul.default" in ops_in(exported.graph_module)
    x2 = randn(100, rng)
    torch.testing.assert_close(exported.module()(x2), model(x2), rtol=0, atol=0)


def test_export_with_a_dynamic_size(rng) -> None:
    def f(x, y):
        return mul(x, y)

    class F(torch.nn.Module):
        def forward(self, x, y):
            return f(x, y)

    n = torch.export.Dim("n")
    exported = torch.export.export(F(), (randn(100, rng), randn(100, rng)),
                                   dynamic_shapes=({0: n}, {0: n}))
    x, y = randn(333, rng), randn(333, rng)
    torch.testing.assert_close(exported.module()(x, y), x * y, rtol=0, atol=0)


@pytest.mark.parametrize("op", ["mul", "mul_bwd", "add_into"])
def test_opcheck(op: str, rng) -> None:
    x, y = randn(90, rng), randn(90, rng)
    if op == "mul":
        opcheck(mul, (x.requires_grad_(), y))
    elif op == "mul_bwd":
        opcheck(mul_bwd, (randn(90, rng), x, y))
    else:
        opcheck(add_into, (x, y))


# Errors


def test_host_function_output_on_another_device_is_an_error() -> None:
    @tlt.custom_op("tilelang_tests::wrong_device", mutates_args=())
    def wrong_device(x: torch.Tensor) -> torch.Tensor:
        return torch.empty(x.shape, device="meta")  # forgot device=x.device

    match = r"output 0 of the host function is on meta, but its inputs are on cpu"
    with pytest.raises(ct.TileValueError, match=match):
        wrong_device(torch.ones(4))
    with FakeTensorMode(), pytest.raises(ct.TileValueError, match=match):
        wrong_device(torch.ones(4))


@pytest.mark.filterwarnings("ignore:Accessing the data pointer of FakeTensor")  # what it does
def test_tilelang_launch_in_a_host_function_names_tilelang_torch_launch() -> None:
    @tlt.custom_op("tilelang_tests::plain_launch", mutates_args=())
    def plain_launch(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        ct.launch(None, grid(x), interpreted, (x, x, out, BLOCK))  # runs even on fake tensors
        return out

    interpreted = mul_kernel.replace_hints(interpret=True)
    x = torch.ones(10)
    torch.testing.assert_close(plain_launch(x), x)  # eagerly it works
    with FakeTensorMode(), pytest.raises(ct.TileArgumentError, match=r"tilelang\.torch\.launch"):
        plain_launch(torch.empty(10))


def make_op_with_fake(name: str, fake):
    calls = []

    def counted_fake(x):
        calls.append(tuple(x.shape))
        return fake(x)

    @tlt.custom_op(f"tilelang_tests::{name}", mutates_args=(), fake=counted_fake)
    def op(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        tlt.launch(grid(x), mul_kernel, (x, x, out, BLOCK))
        return out

    return op, calls


def test_a_given_fake_that_disagrees_with_the_host_function_is_an_error() -> None:
    op, _ = make_op_with_fake("bad_fake", lambda x: x.new_empty(x.shape[0] + 1))
    with pytest.raises(ct.TileValueError,
                       match=r"output 0 of the host function is \(10,\) float32 on cpu.*"
                             r"the fake implementation says \(11,\) float32 on cpu"):
        op(torch.ones(10))


def test_a_given_fake_with_the_wrong_dtype_is_an_error() -> None:
    op, _ = make_op_with_fake("bad_fake_dtype", lambda x: x.new_empty(x.shape, dtype=torch.half))
    with pytest.raises(ct.TileValueError, match=r"fake implementation says \(5,\) float16"):
        op(torch.ones(5))


def test_a_given_fake_is_used_and_checked_once_per_signature(rng) -> None:
    op, calls = make_op_with_fake("good_fake", torch.empty_like)
    for n in (10, 10, 10, 20, 10):
        x = randn(n, rng)
        torch.testing.assert_close(op(x), x * x, rtol=0, atol=0)
    assert calls == [(10,), (20,)]  # one comparison per input signature
    with FakeTensorMode():
        assert op(torch.empty(7)).shape == (7,)
    assert calls[-1] == (7,)


def test_a_fake_registered_later_replaces_the_derived_one_and_is_checked() -> None:
    @tlt.custom_op("tilelang_tests::later_fake", mutates_args=())
    def later_fake(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        tlt.launch(grid(x), mul_kernel, (x, x, out, BLOCK))
        return out

    later_fake.register_fake(lambda x: x.new_empty((2, *x.shape)))
    with FakeTensorMode():
        assert later_fake(torch.empty(4)).shape == (2, 4)
    with pytest.raises(ct.TileValueError, match=r"fake implementation says \(2, 4\)"):
        later_fake(torch.ones(4))


def test_a_fake_with_a_data_dependent_size_is_not_compared(rng) -> None:
    def fake(x):
        return x.new_empty(torch.library.get_ctx().new_dynamic_size())

    @tlt.custom_op("tilelang_tests::positive", mutates_args=(), fake=fake)
    def positive(x: torch.Tensor) -> torch.Tensor:
        kept = x[x > 0].contiguous()
        out = torch.empty_like(kept)
        tlt.launch(grid(kept), mul_kernel, (kept, kept, out, BLOCK))
        return out

    x = randn(200, rng)
    torch.testing.assert_close(positive(x), x[x > 0] ** 2, rtol=0, atol=0)
    opcheck(positive, (x,))


def test_a_host_function_that_needs_data_says_how_to_fix_it() -> None:
    @tlt.custom_op("tilelang_tests::data_dependent", mutates_args=())
    def data_dependent(x: torch.Tensor) -> torch.Tensor:
        return x.new_empty(int(x.max()))  # the output's size depends on the values

    assert data_dependent(torch.tensor([2.0, 3.0])).shape == (3,)
    with FakeTensorMode(), pytest.raises(Exception) as info:
        data_dependent(torch.tensor([2.0, 3.0]))
    assert any("pass fake= to tilelang.torch.custom_op" in note
               for note in getattr(info.value, "__notes__", []))



def test_tags_reach_the_op_with_and_without_infer_schema_taking_them(monkeypatch) -> None:
    tag = torch.Tag.pt2_compliant_tag

    def host(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        tlt.launch((ct.cdiv(x.numel(), BLOCK),), mul_kernel, (x, y, out, BLOCK))
        return out

    op = tlt.custom_op("tilelang_tests::tagged", mutates_args=(), tags=(tag,))(host)
    assert tag in op._opoverload.tags
    real = torch.library.infer_schema

    def older(prototype_function, /, *, mutates_args, op_name=None):  # no tags parameter
        return real(prototype_function, mutates_args=mutates_args, op_name=op_name)

    monkeypatch.setattr(torch.library, "infer_schema", older)
    again = tlt.custom_op("tilelang_tests::tagged_older", mutates_args=(), tags=(tag,))(host)
    assert tag in again._opoverload.tags
    x = torch.randn(10)
    torch.testing.assert_close(again(x, x), x * x)
