"""Benchmarks: what bench_cutile_kernels.py's cases share: loading NVIDIA cuTile's own kernels
(test/kernels/*.py of a cuTile checkout, unchanged) through the `cuda.tile` shim, cuTile's tuned
configurations (its test/benchmark_tuning.json, looked up as its benchmarks do), the case /
implementation records, random inputs, poisoned outputs and the tolerance check."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CUTILE = ROOT / ".device" / "cutile-src"
DEFAULT_SHIM = ROOT / ".device" / "conformance" / "shim"
# the modules of cuTile's test/kernels/ measured here
MODULES = ("attention", "matmul", "layer_norm", "rms_norm", "transpose", "vec_add", "fused_moe",
           "group_gemm", "fft", "fft_ref")
# dense peak rates of an H100 / H200 SXM (datasheet, TFLOP/s) by what the products run on
PEAK_TFLOPS = {"fp16": 989.4, "tf32": 494.7, "fp8": 1978.9, "fp32": 66.9}
NOMINAL_GBPS = 3000.0  # stands in for the measured copy bandwidth where none was measured
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
          "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2,
          "c32": torch.complex32, "c64": torch.complex64}


# ----- tolerances ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tol:
    """|got - want| <= atol * rms(want) + rtol * |want| elementwise (atol * max|want| when
    `by_max`), and ||got - want|| / ||want|| <= norm."""

    rtol: float
    atol: float
    norm: float
    by_max: bool = False


TOLS = {
    "exact": Tol(0.0, 0.0, 0.0),
    "fp32": Tol(1e-4, 1e-5, 1e-5),
    "tf32": Tol(1e-2, 1e-2, 5e-3),  # float32 operands rounded to tf32 (cuTile's matmul kernels)
    "fp16": Tol(1e-2, 1e-2, 5e-3),
    "bf16": Tol(2e-2, 2e-2, 1e-2),
    # attention: each output is a weighted mean of value rows whose weights were rounded to the
    # inputs' dtype before the second product (as every flash kernel does, cuDNN's too), so an
    # element's error scales with the values' magnitude, not the output's rms (a causal row
    # that averages few keys stands far above it)
    "attn-fp16": Tol(1e-2, 1e-2, 5e-3, by_max=True),
    "attn-bf16": Tol(2e-2, 2e-2, 1e-2, by_max=True),
    # the MoE layer rounds its intermediates (gate/up, the activation) to the inputs' dtype,
    # as cuTile's does: elementwise, cuTile's own bench_moe bounds (rtol = atol = 5e-2 fp16,
    # 1e-1 bf16); the relative L2 bound as for the dtype
    "moe-fp16": Tol(5e-2, 5e-2, 5e-3),
    "moe-bf16": Tol(1e-1, 1e-1, 1e-2),
    "fp8": Tol(2e-2, 2e-2, 5e-3),  # fp8 operands are exact; the products' sums are not
    # cuTile's bench_fft checks only the relative L2 error: 1e-2 (complex32), 1e-5 (complex64)
    "c32": Tol(5e-2, 5e-2, 1e-2),
    "c64": Tol(1e-3, 1e-4, 1e-5),
}

CHUNK = 1 << 25  # elements compared at a time (bounded temporaries on 1G-element outputs)


def _flat(t: torch.Tensor) -> torch.Tensor:
    return (torch.view_as_real(t) if t.is_complex() else t).reshape(-1)


def mismatch(got: torch.Tensor, want: torch.Tensor, tol: Tol) -> str | None:
    """None if `got` matches `want` within `tol`, else what is off (non-finite elements, such
    as a poisoned output left unwritten, are always off)."""
    if tuple(got.shape) != tuple(want.shape):
        return f"shape {tuple(got.shape)}, expected {tuple(want.shape)}"
    g, w = _flat(got), _flat(want)
    n = g.numel()
    sq_want = sq_diff = amax = 0.0
    for s in range(0, n, CHUNK):
        gs, ws = g[s:s + CHUNK].float(), w[s:s + CHUNK].float()
        bad = int((~torch.isfinite(gs)).sum())
        if bad:
            return f"{bad} of {n} elements not finite (left unwritten?)"
        sq_want += float(ws.double().square().sum())
        sq_diff += float((gs - ws).double().square().sum())
        amax = max(amax, float(ws.abs().max())) if ws.numel() else amax
    rms = amax if tol.by_max else math.sqrt(sq_want / max(n, 1))
    rel = math.sqrt(sq_diff / sq_want) if sq_want else math.sqrt(sq_diff)
    off, first = 0, None
    for s in range(0, n, CHUNK):
        gs, ws = g[s:s + CHUNK].float(), w[s:s + CHUNK].float()
        over = (gs - ws).abs() > tol.atol * rms + tol.rtol * ws.abs()
        count = int(over.sum())
        if count and first is None:
            first = s + int(over.nonzero()[0, 0])
        off += count
    if rel > tol.norm or off:
        where = "" if first is None else (f"; first at flat index {first}: "
                                          f"{float(g[first]):.5g} vs {float(w[first]):.5g}")
        return f"relative error {rel:.2e} (limit {tol.norm:.0e}), {off} of {n} elements off{where}"
    return None


def compare(got: dict[str, torch.Tensor], want: dict[str, torch.Tensor], tol: Tol) -> str | None:
    """None if every output in `got` matches the reference output of the same name."""
    for name, tensor in got.items():
        problem = mismatch(tensor, want[name], tol)
        if problem:
            return f"{name}: {problem}"
    return None


# ----- inputs -------------------------------------------------------------------------------------


def fill_(t: torch.Tensor, kind: str = "normal", scale: float = 1.0, shift: float = 0.0) -> None:
    """Fresh random values in place: normal(shift, scale) or uniform [shift, shift + scale)."""
    with torch.no_grad():
        target = torch.view_as_real(t) if t.is_complex() else t
        if target.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            if kind == "uniform":
                target.uniform_(shift, shift + scale)
            else:
                target.normal_(shift, scale)
            return
        make = torch.rand if kind == "uniform" else torch.randn
        values = make(target.shape, device=target.device, dtype=torch.float32)
        target.copy_(values.mul_(scale).add_(shift))


def poison_(*tensors: torch.Tensor) -> None:
    """NaN into every element: an element a kernel leaves unwritten fails the check."""
    with torch.no_grad():
        for t in tensors:
            (torch.view_as_real(t) if t.is_complex() else t).fill_(float("nan"))


@contextlib.contextmanager
def tf32() -> Iterator[None]:
    """float32 products on the tensor cores in tf32 (as cuTile's float32 matmul kernels do)."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        old = matmul.fp32_precision
        matmul.fp32_precision = "tf32"
        try:
            yield
        finally:
            matmul.fp32_precision = old
    else:
        old = matmul.allow_tf32
        matmul.allow_tf32 = True
        try:
            yield
        finally:
            matmul.allow_tf32 = old


def inductor(fn: Callable) -> Callable:
    """`fn` through torch.compile (Inductor), one static-shape compilation per shape."""
    return torch.compile(fn, dynamic=False)


def raise_dynamo_limits() -> None:
    """One compilation per shape and dtype: many more than dynamo's default limit of 8 per
    function (past it, torch.compile falls back to eager without saying so)."""
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                 "accumulated_cache_size_limit"):
        if hasattr(config, name):
            setattr(config, name, 4096)


# ----- cuTile's kernels through the shim ----------------------------------------------------------


def load_cutile(cutile: Path, shim: Path) -> SimpleNamespace:
    """cuTile's test/kernels modules, imported unchanged with `cuda.tile` resolving to the shim
    (tilelang); a module that fails to import is held as its exception."""
    kernels_dir = cutile / "test" / "kernels"
    if not (kernels_dir / "__init__.py").is_file():
        raise SystemExit(f"--cutile {cutile}: no test/kernels/ there (give the folder that holds "
                         "cuTile's test/ and samples/)")
    if not (shim / "cuda" / "tile" / "__init__.py").is_file():
        raise SystemExit(f"--shim {shim}: no cuda/tile/__init__.py there")
    sys.path.insert(0, str(shim))
    import tilelang

    tile = importlib.import_module("cuda.tile")
    if not Path(tile.__file__).resolve().is_relative_to(shim.resolve()) or \
            getattr(tile, "launch", None) is not tilelang.launch:
        raise SystemExit(f"cuda.tile resolves to {tile.__file__}, not to the shim in {shim} "
                         "(is a real cuda-tile installed, or `cuda` a regular package?)")
    spec = importlib.util.spec_from_file_location(
        "kernels", kernels_dir / "__init__.py", submodule_search_locations=[str(kernels_dir)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["kernels"] = package  # cuTile's modules import each other as kernels.<name>
    spec.loader.exec_module(package)
    modules: dict[str, Any] = {}
    for name in MODULES:
        try:
            modules[name] = importlib.import_module(f"kernels.{name}")
        except Exception as e:  # the cases of that module report it
            modules[name] = e
    return SimpleNamespace(**modules)


def canonical(value: Any) -> Any:
    """A parameter as cuTile's benchmark_tuning.json spells it (dtypes by name, shapes as
    lists)."""
    if isinstance(value, torch.dtype):
        return str(value).removeprefix("torch.")
    if isinstance(value, tuple | list | torch.Size):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    return value


class Tuning:
    """cuTile's test/benchmark_tuning.json: per GPU name and benchmark, the configuration its
    tuner found for some parameters. Looked up as cuTile's benchmarks do: this GPU's entries
    when the file has any for it, else the first GPU (by name) with a matching entry."""

    def __init__(self, cutile: Path):
        path = cutile / "test" / "benchmark_tuning.json"
        self.gpus: dict = json.loads(path.read_text()).get("gpus", {}) if path.is_file() else {}

    def lookup(self, bench: str, params: dict, gpu: str) -> tuple[dict | None, str | None]:
        """(config, GPU it was tuned on) or (None, None)."""
        names = [gpu] if gpu in self.gpus else sorted(self.gpus)
        for name in names:
            for entry in self.gpus[name].get(bench, []):
                if entry.get("params") == canonical(params):
                    return dict(entry["config"]), name
        return None, None


# ----- cases --------------------------------------------------------------------------------------


@dataclass
class Env:
    """Where and how a case runs: cuTile's modules, the device, the tuned configurations."""

    k: SimpleNamespace
    tuning: Tuning
    device: str  # "cuda", or "cpu" for the dry run (tilelang's interpreter)
    gpu: str  # the device's name, as the tuning file keys configurations
    num_sms: int
    max_configs: int | None  # configurations per case (cuTile's tuned one first); None: all
    inductor: bool
    recording: list | None = None  # (kernel, args) of each launch while set

    def module(self, name: str) -> Any:
        mod = getattr(self.k, name)
        if isinstance(mod, Exception):
            raise RuntimeError(f"cuTile's kernels/{name}.py did not import: "
                               f"{type(mod).__name__}: {mod}")
        return mod

    def stream(self) -> Any:
        return torch.cuda.current_stream() if self.device == "cuda" else None

    def launch(self, grid: tuple, kernel: Any, args: tuple) -> None:
        import tilelang

        tilelang.launch(self.stream(), grid, kernel, args)
        if self.recording is not None:
            self.recording.append((kernel, args))

    def configs(self, bench: str | None, params: dict, alternates: tuple[dict, ...],
                label: Callable[[dict], str]) -> list[tuple[str, dict]]:
        """(label, config) to measure: cuTile's tuned configuration first (where its tuning
        file has one), then `alternates` (from cuTile's own search spaces), --configs many."""
        tuned, source = self.tuning.lookup(bench, params, self.gpu) if bench else (None, None)
        found = [(f"{label(tuned)} [cuTile's, {source}]", tuned)] if tuned else []
        found += [(label(c), c) for c in alternates if c != tuned]
        return found[:self.max_configs] if self.max_configs else found


def runner(env: Env, grid: tuple, kernel: Any, args: tuple,
           outputs: dict[str, torch.Tensor]) -> Callable[[], dict]:
    """One launch of `kernel` as a timed implementation returning its outputs."""
    def run() -> dict:
        env.launch(grid, kernel, args)
        return outputs
    return run


@dataclass
class Impl:
    """One implementation of a case: a configuration of cuTile's kernel, or a peer."""

    name: str
    run: Callable[[], dict]  # launches; returns the outputs to check ({}: nothing to check)
    poison: Callable[[], None] = lambda: None
    graph: bool = True  # timed by replaying a CUDA graph of calls (False: plain launches)
    key: str | None = None  # peers: one key, one measurement per process (shared by cases)


@dataclass
class Bench:
    """A case's buffers, allocated: fresh inputs, the reference, what is timed."""

    redraw: Callable[[], None]
    reference: Callable[[], dict[str, torch.Tensor]]
    ours: list[Impl]
    peers: list[Impl]


@dataclass
class Case:
    family: str  # the --kernels name
    kernel: str  # cuTile's kernel function(s) launched
    variant: str
    shape: str
    dtype: str
    tol: str  # a key of TOLS
    flops: float  # the products' floating-point operations (0 where it means nothing)
    bytes: float  # the fewest bytes the case must move: each input read and output written once
    peak: str  # a key of PEAK_TFLOPS: what the products run on
    build: Callable[[Env], Bench] = field(repr=False)

    @property
    def id(self) -> str:
        return f"{self.family}|{self.variant}|{self.shape}|{self.dtype}"

    def floor_ms(self, gbps: float | None) -> float:
        """The roofline floor: the larger of flops at the peak rate and bytes at `gbps`."""
        return max(self.flops / PEAK_TFLOPS[self.peak] / 1e9,
                   self.bytes / (gbps or NOMINAL_GBPS) / 1e6)

    def metric(self, gbps: float | None) -> str:
        compute = self.flops / PEAK_TFLOPS[self.peak] / 1e9
        return "TFLOP/s" if compute >= self.bytes / (gbps or NOMINAL_GBPS) / 1e6 else "GB/s"

    def rate(self, ms: float, gbps: float | None) -> float:
        if self.metric(gbps) == "TFLOP/s":
            return self.flops / ms / 1e9
        return self.bytes / ms / 1e6


@dataclass(frozen=True)
class Selection:
    """Which shapes the cases take: cuTile's, the --quick subset, or the dry run's tiny ones."""

    quick: bool
    dry: bool

    def pick(self, full: tuple, quick: tuple, dry: tuple) -> tuple:
        return dry if self.dry else quick if self.quick else full
