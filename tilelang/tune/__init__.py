"""Autotuning: cuTile's `exhaustive_search` and `TuningResult`, and a Triton-style
`autotune(configs, key)` decorator over tilelang kernels (docs/tuning.md)."""

from tilelang.tune.autotune import Autotuner, Config, autotune
from tilelang.tune.search import Measurement, TuningResult, exhaustive_search

__all__ = ["Autotuner", "Config", "Measurement", "TuningResult", "autotune", "exhaustive_search"]
