"""cuda.core's names across its releases (1.2.x keeps them at the top level; older ones under
cuda.core.experimental), for the backend's assembler and the runtime."""

from __future__ import annotations

try:
    from cuda.core import Device, ObjectCode, Program, ProgramOptions
except ImportError:  # pragma: no cover - older cuda.core
    from cuda.core.experimental import Device, ObjectCode, Program, ProgramOptions

from cuda.bindings import driver

__all__ = ["Device", "ObjectCode", "Program", "ProgramOptions", "driver"]
