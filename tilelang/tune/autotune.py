"""Autotuning: Triton's `autotune(configs, key)` over tilelang kernels.

The decorated kernel is launched like any other, minus the parameters its configs set:
`launch(stream, grid, tuned, args)`, where `grid` may be a function of the full
arguments by name. The first launch for a new key (the values of the `key` arguments, the
dtypes of all arrays, the device) times every config on the real arguments (restored between
runs) and remembers the fastest, in memory and in `autotune.json` under the cache directory.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

# fingerprint and the GPU launch path are imported with the autotuner, not at the first launch:
# a new process's first launch of a tuned kernel (its choice from autotune.json, its binary from
# the disk cache) then imports nothing; without .pyc files (PYTHONDONTWRITEBYTECODE) compiling
# these modules took 1-3 ms each of that launch. cuda.core is loaded by search anyway.
from tilelang import settings
from tilelang.errors import TileArgumentError, TileValueError
from tilelang.frontend.source import fingerprint
from tilelang.interface.kernel import Kernel, KernelHints, KernelOptions, as_kernel
from tilelang.runtime import gpu_launch  # noqa: F401  (see above)
from tilelang.runtime.launch import exported_in, launch, use_interpreter
from tilelang.tune import records
from tilelang.tune.keys import device_name, key_of
from tilelang.tune.progress import Progress
from tilelang.tune.search import NoValidConfigError, TuningResult, search
from tilelang.tune.snapshot import Snapshots

exported_in(globals())  # `launch` here becomes the C entry once built (runtime/launch.py)

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Config:
    """One point of an autotuning space: values for kernel parameters (usually constants such
    as tile sizes) and kernel options (`num_warps`, `occupancy`, ...).

    Example:
        >>> tilelang.Config({"BLOCK": 1024}, num_warps=8)
    """

    def __init__(self, kwargs: Mapping[str, Any] | None = None,
                 **hints: Unpack[KernelHints]) -> None:
        self.kwargs = dict(kwargs or {})
        self.hints = hints
        unknown = sorted(set(hints) - set(KernelOptions.__dataclass_fields__))
        if unknown:
            raise TypeError(f"Config: unknown option {unknown[0]!r}; the options are "
                            f"{', '.join(KernelOptions.__dataclass_fields__)}")

    def to_json(self) -> dict[str, Any]:
        return {"kwargs": self.kwargs, "hints": self.hints}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        items = [f"{k}={v!r}" for k, v in {**self.kwargs, **self.hints}.items()]
        return f"Config({', '.join(items)})"


def autotune(configs: Sequence[Config | Mapping[str, Any]], key: Iterable[str] = (), *,
             restore_value: Iterable[str] | None = None
             ) -> Callable[[Kernel | Callable[..., Any]], Autotuner]:
    """Decorate a kernel to pick the fastest of `configs` per value of the `key` arguments.

    `restore_value` names the array arguments the kernel writes, put back before every timed
    run; by default every array argument is.

    Example:
        >>> @tilelang.autotune(configs=[tilelang.Config({"BLOCK": b}) for b in (256, 1024)],
        ...                    key=["n"])
        ... @tilelang.kernel
        ... def scale(x, out, n, BLOCK: tilelang.Constant[int]): ...
        >>> tilelang.launch(stream, lambda a: (tilelang.cdiv(a["n"], a["BLOCK"]),), scale,
        ...                 (x, out, n))
    """
    def wrap(kernel: Kernel | Callable[..., Any]) -> Autotuner:
        return Autotuner(as_kernel(kernel), configs, key, restore_value)

    return wrap


class Autotuner:
    """A kernel with a space of configs; `tilelang.launch` runs it with the best one."""

    def __init__(self, kernel: Kernel, configs: Sequence[Config | Mapping[str, Any]],
                 key: Iterable[str], restore_value: Iterable[str] | None) -> None:
        self.kernel = kernel
        self.name = kernel.name
        self.configs = [c if isinstance(c, Config) else Config(c) for c in configs]
        if not self.configs:
            raise TileValueError(f"autotune of kernel {self.name}: no configs to choose from")
        names = [p.name for p in kernel.params]
        self.tuned = _tuned_names(self.name, self.configs, names)
        self.arg_names = [n for n in names if n not in self.tuned]  # what a launch passes
        self.key = _check_names(self.name, "key", list(key), self.arg_names, self.tuned)
        self.restore_value = None if restore_value is None else _check_names(
            self.name, "restore_value", list(restore_value), self.arg_names, self.tuned)
        self.kernels = [kernel.replace_hints(**c.hints) if c.hints else kernel
                        for c in self.configs]
        self.cache: dict[tuple[str, Any], Config] = {}  # (device, key) -> the chosen config
        self.last_result: TuningResult[Config] | None = None

    def __repr__(self) -> str:
        return f"<tilelang autotuned kernel {self.name}: {len(self.configs)} configs>"

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"kernel {self.name} cannot be called directly; use "
                        f"launch(stream, grid, {self.name}, args)")

    def __tilelang_launch__(self, stream: object, grid: object, args: object) -> None:
        args = self._check_args(args)
        index = self.choose(stream, grid, args)
        full = self.full_args(index, args)
        launch(stream, _grid(grid, self.kernel, full), self.kernels[index], full)

    def choose(self, stream: object, grid: object, args: tuple[Any, ...]) -> int:
        """The index of the config to run these arguments with (searching if no choice is
        remembered for their key)."""
        if not settings.autotune_enabled():
            return 0
        device = "interpreter" if use_interpreter(self.kernel) else device_name(args)
        key = key_of(self.key, self.arg_names, args)
        config = self.cache.get((device, key))
        if config is None:
            config = self._recorded(device, key) or self._search(stream, grid, args, device, key)
            self.cache[(device, key)] = config
        return self.configs.index(config)

    def full_args(self, index: int, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The kernel's arguments: the launch's, with the config's values in their places."""
        values = self.configs[index].kwargs
        given = iter(args)
        return tuple(values[p.name] if p.name in self.tuned else next(given)
                     for p in self.kernel.params)

    def _check_args(self, args: object) -> tuple[Any, ...]:
        if not isinstance(args, tuple | list):
            raise TileArgumentError(f"kernel arguments must be a tuple, got {type(args).__name__}")
        if len(args) != len(self.arg_names):
            raise TileArgumentError(
                f"autotuned kernel {self.name} takes {len(self.arg_names)} arguments "
                f"({', '.join(self.arg_names)}), got {len(args)}",
                hint=f"its configs set {', '.join(sorted(self.tuned))}: leave them out")
        return tuple(args)

    def _recorded(self, device: str, key: tuple[object, ...]) -> Config | None:
        entry = records.lookup(_kernel_id(self.kernel), fingerprint(self.kernel.fn), device,
                               _key_text(key))
        found = entry and entry.get("config")
        return next((c for c in self.configs if c.to_json() == found), None)

    def _search(self, stream: object, grid: object, args: tuple[Any, ...], device: str,
                key: tuple[object, ...]) -> Config:
        snapshots = Snapshots(self._written(args))
        index = {id(c): i for i, c in enumerate(self.configs)}
        fulls = [self.full_args(i, args) for i in range(len(self.configs))]

        def run_args(config: Config) -> tuple[Any, ...]:
            snapshots.restore()
            return fulls[index[id(config)]]

        progress = Progress(f"autotuning {self.name}")
        try:
            result = search(self.configs, stream,
                            lambda c: _grid(grid, self.kernel, fulls[index[id(c)]]),
                            lambda c: self.kernels[index[id(c)]], run_args, None, None,
                            progress)
        except NoValidConfigError as e:
            self._warn(e.failures)
            raise
        finally:
            progress.close()
            snapshots.restore()
        self.last_result = result
        self._warn(result.failures)
        best = min(result.successes, key=lambda m: m.median_us)
        config = best.config
        self._record(device, key, config, best.median_us)
        if settings.print_autotuning():
            print(f"autotune {self.name} {_key_text(key)} on {device}: {config} "
                  f"({best.median_us:.1f} us median)\n{result.summary()}")
        return config

    def _warn(self, failures: Sequence[tuple[Config, type[BaseException], str]]) -> None:
        for config, kind, message in failures:
            first = message.splitlines()[0] if message else ""
            warnings.warn(f"autotune: {config} of kernel {self.name} failed and is skipped: "
                          f"{kind.__name__}: {first}", stacklevel=5)

    def _record(self, device: str, key: tuple[object, ...], config: Config,
                median_us: float) -> None:
        try:
            json.dumps(config.to_json())
        except TypeError:  # values JSON cannot hold: remembered in memory only
            return
        records.store(_kernel_id(self.kernel), fingerprint(self.kernel.fn), device,
                      _key_text(key), {"config": config.to_json(), "median_us": median_us})

    def _written(self, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        """(name, array) of the arguments to restore between runs."""
        from tilelang.tune.keys import arrays_in

        chosen = self.restore_value if self.restore_value is not None else self.arg_names
        return [(name, array) for name, value in zip(self.arg_names, args) if name in chosen
                for array in arrays_in(value)]


def _grid(grid: object, kernel: Kernel, full: tuple[Any, ...]) -> object:
    if callable(grid):
        return grid({p.name: v for p, v in zip(kernel.params, full)})
    return grid


def _tuned_names(name: str, configs: list[Config], params: list[str]) -> set[str]:
    tuned = set(configs[0].kwargs)
    for i, c in enumerate(configs):
        if set(c.kwargs) != tuned:
            raise TileValueError(
                f"autotune of kernel {name}: every config must set the same parameters; "
                f"config 0 sets {sorted(tuned)}, config {i} sets {sorted(c.kwargs)}")
    missing = sorted(tuned - set(params))
    if missing:
        raise TileValueError(f"autotune of kernel {name}: the configs set {missing[0]!r}, which "
                             f"is not a parameter of the kernel ({', '.join(params)})")
    return tuned


def _check_names(name: str, what: str, names: list[str], args: list[str],
                 tuned: set[str]) -> list[str]:
    for n in names:
        if n in tuned:
            raise TileValueError(f"autotune of kernel {name}: {what} names {n!r}, which the "
                                 "configs set")
        if n not in args:
            raise TileValueError(f"autotune of kernel {name}: {what} names {n!r}, which is not "
                                 f"a parameter of the kernel ({', '.join(args)})")
    return names


def _kernel_id(kernel: Kernel) -> str:
    return f"{kernel.fn.__module__}.{kernel.fn.__qualname__}"


def _key_text(key: tuple[object, ...]) -> str:
    return json.dumps(key, default=repr)
