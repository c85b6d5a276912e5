"""tilelang's version (a leaf module: the exporters record it without importing the package)."""

__version__ = "0.1.0"
