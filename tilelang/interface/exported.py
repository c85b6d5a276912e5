"""Interface: what `Kernel.export` (tilelang.export) wrote, and the hook that does it.

The exporter compiles, and the interface layer imports no compiler: the package root installs
the exporter here (tilelang/__init__.py), which loads tilelang.export on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Exported:
    """What `export` wrote: the paths (cubin None when not assembled) and the description."""

    directory: Path
    header: Path
    json: Path
    ptx: Path
    cubin: Path | None
    description: dict[str, Any]


# (kernel, directory, *signature, **options) -> Exported; set by tilelang/__init__.py
EXPORTER: list[Callable[..., Exported]] = []
