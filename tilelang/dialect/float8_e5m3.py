"""Dialect: float8_e5m3fnu's bytes and values, in NumPy (no NumPy or ml_dtypes dtype has it).

No sign bit, 5 exponent bits (bias 15), 3 mantissa bits: code c >= 8 is 2**((c >> 3) - 15) *
(1 + (c & 7) / 8), codes 0..7 are (c & 7) * 2**-17 (0 is zero), 0xFF is NaN, there is no
infinity; the largest value, 0xFE, is 1.75 * 2**16 = 114688. Conversion to it is the rule of
dialect/restricted.py, computed here on float32's bits as the GPU lowering computes it
(passes/simt/restricted.py).

The interpreter holds its bytes in a one-field record dtype (E5M3FNU): the array says what it
holds (a uint8 array would pass for integers), and arithmetic on it fails instead of computing
on codes; `widen_restricted` gives its values as float32.
"""

from __future__ import annotations

import numpy as np

E5M3FNU = np.dtype([("float8_e5m3fnu", np.uint8)])
E5M3_NAN = 0xFF
E5M3_MAX = 0xFE  # 114688.0
E5M3_MAX_VALUE = 114688.0
# Its exponent field is float32's minus 112 (biases 15 and 127): a normal code is
# float32's bits from bit 20 up, less 112 << 3. Its subnormals are multiples of 2**-17, the
# spacing of float32 values in [64, 128): adding 64 rounds a magnitude below 2**-14 to one
# (nearest even, as float32 addition does), and the bits past 64's are the code (8 is 2**-14).
E5M3_EXPONENT_OFFSET = 112 << 3
E5M3_DROPPED_BITS = 20  # float32 keeps 23 mantissa bits, e5m3 3
E5M3_SUBNORMAL_BIAS = 64.0
E5M3_SUBNORMAL_BIAS_BITS = 0x42800000  # the bits of 64.0
E5M3_SUBNORMAL_STEP = 2.0 ** -17


def e5m3_codes(f: np.ndarray) -> np.ndarray:
    """The float8_e5m3fnu bytes of float32 values (the GPU lowering computes the same on the
    float32 bits): normal magnitudes rounded on float32's bits, subnormal ones by adding 64,
    saturating at 0xFE; NaN for NaN and negative values other than -0.0."""
    f = np.array(f, dtype=np.float32)  # a contiguous copy that keeps a 0-d shape
    bits = f.view(np.uint32)
    magnitude = bits & np.uint32(0x7FFFFFFF)
    odd = (magnitude >> np.uint32(E5M3_DROPPED_BITS)) & np.uint32(1)
    half = np.uint32((1 << (E5M3_DROPPED_BITS - 1)) - 1)
    rounded = ((magnitude + half + odd) >> np.uint32(E5M3_DROPPED_BITS)).astype(np.int64)
    normal = rounded - E5M3_EXPONENT_OFFSET
    with np.errstate(invalid="ignore"):
        biased = magnitude.view(np.float32) + np.float32(E5M3_SUBNORMAL_BIAS)
    subnormal = biased.view(np.uint32).astype(np.int64) - E5M3_SUBNORMAL_BIAS_BITS
    is_normal = magnitude >= np.uint32(113 << 23)  # 2**-14 and up
    code = np.minimum(np.where(is_normal, normal, subnormal), E5M3_MAX)
    nan = np.isnan(f) | (bits > np.uint32(0x80000000))  # -0.0 is zero
    return np.where(nan, E5M3_NAN, code).astype(np.uint8)


def e5m3_values(codes: np.ndarray) -> np.ndarray:
    """float32 values of float8_e5m3fnu bytes (exact): a normal code's bits shifted into
    float32's exponent and mantissa fields, a subnormal one times 2**-17, 0xFF NaN."""
    c = np.asarray(codes, dtype=np.uint8).astype(np.uint32)
    normal = ((c << np.uint32(E5M3_DROPPED_BITS)) + np.uint32(E5M3_EXPONENT_OFFSET << 20))
    subnormal = c.astype(np.float32) * np.float32(E5M3_SUBNORMAL_STEP)
    values = np.where(c >= 8, normal.view(np.float32), subnormal)
    return np.where(c == E5M3_NAN, np.float32(np.nan), values).astype(np.float32)


def widen_restricted(x: np.ndarray) -> np.ndarray:
    """float8_e5m3fnu's values as float32 (exact); any other array as it is."""
    if x.dtype != E5M3FNU:
        return x
    return e5m3_values(x.view(np.uint8))
