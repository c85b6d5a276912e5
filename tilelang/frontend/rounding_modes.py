"""Front end: the rounding modes `astype` accepts, checked as cuTile checks them.

cuTile's table (Tile IR's float conversions), for the dtypes tilelang has: round to nearest even
(RN) everywhere; toward zero (RZ) to float64, float32, tfloat32, float16 and bfloat16; toward
-inf/+inf (RM/RP) to float64 and float32, and to float16 from the floats narrower than it in
range (bfloat16, the 8-bit floats); to nearest with ties away (RA) to float64, to float32 and
tfloat32 from anything but float64, and to float16 like RM. From float8_e8m0fnu (a power of two,
which every wider float holds exactly) RM, RP and RA are refused but to float64. From
float8_e5m3fnu, RM, RP and RA are refused to float16 (the only wider float that cannot hold
all its values: 65536 and up overflow), taken to float64, float32 and tfloat32 (RA) as from the
other 8-bit floats. The 8-bit floats take RN only (cuTile also has RZ and RP to float8_e8m0fnu;
tilelang does not yet).
"""

from __future__ import annotations

from tilelang.errors import TileTypeError
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.language.enums import RoundingMode

_WIDE_RANGE = (dt.float64, dt.float32, dt.tfloat32)  # sources RM/RP/RA to float16 refuse


def allowed(src: DType, dst: DType) -> tuple[RoundingMode, ...]:
    """The rounding modes of a conversion from float `src` to float `dst`, in cuTile's order."""
    modes = [RoundingMode.RN]
    if dst in (dt.float64, dt.float32, dt.tfloat32, dt.float16, dt.bfloat16):
        modes.append(RoundingMode.RZ)
    scale = src is dt.float8_e8m0fnu  # directed modes only to float64 (cuTile's table)
    to_half = (dst is dt.float16 and src not in _WIDE_RANGE and not scale
               and src is not dt.float8_e5m3fnu)
    if dst is dt.float64 or (dst is dt.float32 and not scale) or to_half:
        modes += [RoundingMode.RM, RoundingMode.RP]
    if dst is dt.float64 or (dst in (dt.float32, dt.tfloat32) and src is not dt.float64
                             and not scale) or to_half:
        modes.append(RoundingMode.RA)
    return tuple(modes)


def cast_attribute(src: DType | None, dst: DType, mode: object) -> str | None:
    """`tile.cast`'s `rounding_mode` attribute for astype(x of `src`, `dst`, rounding_mode=mode),
    None for round to nearest even (the default); raises cuTile's errors."""
    if mode is None:
        return None
    if not isinstance(mode, RoundingMode):
        raise TileTypeError(f"rounding_mode must be a RoundingMode, got {mode!r}")
    if not (src is not None and src.is_float and dst.is_float):
        raise TileTypeError("rounding_mode is only valid for float to float conversions")
    if src is dst:
        return None
    modes = allowed(src, dst)
    if mode not in modes:
        names = ", ".join(m.name for m in modes)
        raise TileTypeError(
            f"rounding_mode={mode} is not supported for conversion from {src} to {dst}, "
            f"supported rounding modes for this conversion are ({names})")
    return None if mode is RoundingMode.RN else mode.value
