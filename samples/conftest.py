"""Samples import their shared helper as a top-level module."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
