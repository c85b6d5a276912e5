"""Passes (simt): helpers of tile-distribute-to-threads, one module per op family."""
