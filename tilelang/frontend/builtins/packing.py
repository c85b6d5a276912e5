"""Front end: pack_to_bytes and unpack_from_bytes, built from bitcasts, shifts and a reduction.

Element i of a tile of k-byte elements owns bytes i*k ... i*k+k-1 of the packed tile, least
significant first (little-endian, as the GPU and NumPy store them). float4_e2m1fn packs two
elements a byte, element 2*i in the low 4 bits of byte i and 2*i+1 in the high 4 (as torch's
float4_e2m1fn_x2 and cuTile); its tiles hold one code a byte (language/dtypes.py).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from tilelang.errors import TileTypeError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.common import as_dtype, as_tile
from tilelang.frontend.builtins.reduction import reduce_tiles
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue
from tilelang.language import dtypes as dt
from tilelang.language import packing as lang
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

UNSIGNED = {8: dt.uint8, 16: dt.uint16, 32: dt.uint32, 64: dt.uint64}


@lowers(lang.pack_to_bytes)
def emit_pack_to_bytes(em: Emitter, x: object) -> TileValue:
    tile = as_tile(x, "pack_to_bytes")
    if tile.dtype is dt.bool_:
        raise TileTypeError("Cannot pack_to_bytes from a bool_ tile",
                            hint="convert it first, e.g. x.astype(tilelang.uint8)")
    n, k = math.prod(tile.shape), tile.dtype.itemsize
    if tile.dtype is dt.float4_e2m1fn:
        return _pack_nibbles(build.reshape(tile, (n,)))
    bits = _bitcast(build.reshape(tile, (n,)), UNSIGNED[8 * k])
    if k == 1:
        return bits
    columns = build.broadcast_to(build.reshape(bits, (n, 1)), (n, k))
    shifted = operators.binary("bitwise_rshift", columns, _byte_shifts(k))
    low = operators.binary("bitwise_and", shifted, 0xFF)
    return build.reshape(build.cast(low, dt.uint8), (n * k,))


@lowers(lang.unpack_from_bytes)
def emit_unpack_from_bytes(em: Emitter, x: object, dtype: object) -> TileValue:
    tile = as_tile(x, "unpack_from_bytes")
    target = as_dtype(dtype)
    if tile.dtype is not dt.uint8:
        raise TileTypeError(f"unpack_from_bytes requires uint8 tile, got {describe(tile)}")
    if tile.ndim != 1:
        raise TileTypeError(f"unpack_from_bytes requires a 1D tile, got {describe(tile)}")
    if target is dt.bool_:
        raise TileTypeError("Cannot unpack_from_bytes to a bool_ tile")
    nbits = tile.shape[0] * 8
    if nbits % target.bitwidth:
        raise TileTypeError(f"unpack_from_bytes: the tile's {nbits} bits are not divisible by "
                            f"{target.bitwidth} (the width of {target.name})")
    if target is dt.float4_e2m1fn:
        return _unpack_nibbles(tile)
    k = target.itemsize
    n = tile.shape[0] // k
    if k == 1:
        return _bitcast(tile, target)
    wide = UNSIGNED[8 * k]
    columns = build.cast(build.reshape(tile, (n, k)), wide)
    shifted = operators.binary("bitwise_lshift", columns, _byte_shifts(k))
    (word,) = reduce_tiles([shifted], (1,), [0],
                           lambda a, b: [operators.binary("bitwise_or", a[0], b[0])])
    return _bitcast(build.reshape(word, (n,)), target)


def _pack_nibbles(codes: TileValue) -> TileValue:
    """(2n,) float4_e2m1fn -> (n,) uint8: byte i is code 2i | code 2i+1 << 4."""
    n, rem = divmod(codes.shape[0], 2)
    if rem:
        raise TileTypeError(f"Cannot pack tile of {codes.shape[0]} float4_e2m1fn elements: "
                            f"total bits ({codes.shape[0]} * 4) not divisible by 8")
    pairs = build.reshape(_bitcast(codes, dt.uint8), (n, 2))
    shifts = _nibble_shifts()
    shifted = operators.binary("bitwise_lshift", pairs, shifts)
    (byte,) = reduce_tiles([shifted], (1,), [0],
                           lambda a, b: [operators.binary("bitwise_or", a[0], b[0])])
    return build.reshape(byte, (n,))


def _unpack_nibbles(tile: TileValue) -> TileValue:
    """(n,) uint8 -> (2n,) float4_e2m1fn: the low 4 bits of each byte first."""
    n = tile.shape[0]
    columns = build.broadcast_to(build.reshape(tile, (n, 1)), (n, 2))
    shifts = _nibble_shifts()
    nibbles = operators.binary("bitwise_and",
                               operators.binary("bitwise_rshift", columns, shifts), 0xF)
    return _bitcast(build.reshape(nibbles, (2 * n,)), dt.float4_e2m1fn)


def _nibble_shifts() -> TileValue:
    """(1, 2) uint8 tile of 0, 4."""
    index = build.op("arange", [], dt.uint8, (2,))
    return build.reshape(operators.binary("mul", index, 4), (1, 2))


def _byte_shifts(k: int) -> TileValue:
    """(1, k) tile of 0, 8, 16, ... in the unsigned dtype of k bytes."""
    wide = UNSIGNED[8 * k]
    index = build.op("arange", [], wide, (k,))
    return build.reshape(operators.binary("mul", index, 8), (1, k))


def _bitcast(tile: TileValue, dtype: DType) -> TileValue:
    return tile if tile.dtype is dtype else build.op("bitcast", [tile], dtype, tile.shape)
