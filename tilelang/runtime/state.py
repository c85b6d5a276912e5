"""Runtime: what the runtime keeps per kernel (its loaded specializations, the fast path's
table, the interpreter's compiled programs, build timings), in one typed record beside the
kernel rather than on it: `interface/kernel.py` knows nothing of launchers. The hot path reads
only the kernel's two dispatch slots (`fast_launch`, `native_entry`); this record is for the
slow path, builds, and tests that look inside."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tilelang.interface.kernel import Kernel

if TYPE_CHECKING:
    from tilelang.compiler import CompiledKernel
    from tilelang.interface.specs import ParamSpec
    from tilelang.runtime.launcher import Launcher

LaunchKey = tuple[Any, ...]  # build.memory_key: (signature, arch, device, *codegen switches)


@dataclass(eq=False)
class KernelState:
    """The runtime's record of one kernel."""

    # every specialization loaded on a device, by build.memory_key
    launchers: dict[LaunchKey, Launcher] = field(default_factory=dict)
    # the generated fast path's lookup: fast_path.fast_key of a launch -> its launcher
    fast_table: dict[tuple[Any, ...], Launcher] = field(default_factory=dict)
    # the interpreter's compilations (stopped after tile-opt), by signature
    interpreted: dict[tuple[ParamSpec, ...], CompiledKernel] = field(default_factory=dict)
    # (where the binary came from: "disk" or "compiled", seconds) per GPU build, in order
    timings: list[tuple[str, float]] = field(default_factory=list)

    @property
    def used(self) -> bool:
        """Whether anything was compiled or loaded for the kernel."""
        return bool(self.launchers or self.interpreted or self.fast_table or self.timings)

    def devices(self) -> set[int]:
        """The devices some specialization is loaded on."""
        return {launcher.loaded.device for launcher in self.launchers.values()}

    def clear(self) -> None:
        """Forget every specialization (the disk cache keeps them)."""
        self.launchers.clear()
        self.fast_table.clear()
        self.interpreted.clear()
        self.timings.clear()


_states: weakref.WeakKeyDictionary[Kernel, KernelState] = weakref.WeakKeyDictionary()
_creating = threading.Lock()


def state_of(kernel: Kernel) -> KernelState:
    """The runtime's record of `kernel` (made on first use; it goes with the kernel)."""
    found = _states.get(kernel)
    if found is None:
        with _creating:  # two threads' first launches share one record
            found = _states.setdefault(kernel, KernelState())
    return found


def forget(kernel: Kernel) -> None:
    """Drop everything the runtime holds for `kernel`, its dispatch slots included."""
    _states.pop(kernel, None)
    kernel.fast_launch = None
    kernel.native_entry = None
