"""Passes (simt): 16-bit tile registers carried in pairs, as 32-bit words, through a load's
two paths.

A load picks its fast (vectorized) or masked path at run time, and the two meet in an scf.if
whose results are the tile's registers. Merged one 16-bit element per result, every element
takes a 32-bit register of its own in both paths (ptxas gives each 16-bit phi one), and the
masked path keeps one more per element in flight: a 64-element bf16 row per thread cost 64
registers where the fast path's vector loads need 32 (layer norm's weights and bias, loaded
while the normalized row is live, took 203 registers at 8 warps and 16384 columns; 128 with
words). Merged as words, the fast path's vectors split into words as they were loaded, and
the masked path loads each word with one inline-PTX sequence that writes only that word's
register: the whole word where both halves are inside, else the half that is (zero-extended,
the other half the padding), else the padding alone.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm, vector

from tilelang.passes.simt.context import const


def _i(bits: int) -> ir.Type:
    return ir.IntegerType.get_signless(bits)


def pack(regs: list[ir.Value], mem: ir.Type) -> list[ir.Value]:
    """Pairs of 16-bit registers (consecutive in memory) as i32 words, the first in the low
    half (memory order: NVPTX is little-endian)."""
    pair = ir.VectorType.get([2], mem)
    return [llvm.bitcast(_i(32), vector.from_elements(pair, list(regs[i:i + 2])))
            for i in range(0, len(regs), 2)]


def unpack(words, mem: ir.Type) -> list[ir.Value]:
    """The inverse of `pack`."""
    pair = ir.VectorType.get([2], mem)
    regs = []
    for word in words:
        both = llvm.bitcast(pair, word)
        regs += [vector.extract(both, static_position=[j], dynamic_position=[]) for j in (0, 1)]
    return regs


def masked_word(address: ir.Value, static: int, low: ir.Value, high: ir.Value,
                pad16: ir.Value) -> ir.Value:
    """The i32 word of two 16-bit elements `static` elements past `address` (4-byte aligned):
    each half loaded where its i1 says it is inside, else `pad16` (the padding's bits, i16).
    One register for the word: the loads' predicates exclude each other, so each writes it
    whole (`ld.global.u16` into a 32-bit register zero-extends). Side effects as in
    memory._predicated_load: LLVM must not merge these across stores."""
    true = const(_i(1), 1)
    both = arith.andi(low, high)
    low_only = arith.andi(low, arith.xori(high, true))
    high_only = arith.andi(high, arith.xori(low, true))
    pad = arith.extui(_i(32), pad16)
    pad_high = arith.shli(pad, const(_i(32), 16))
    pad_word = arith.ori(pad, pad_high)
    at, at_high = f"+{2 * static}" if static else "", f"+{2 * static + 2}"
    asm = (f"@$2 ld.global.b32 $0, [$1{at}];\n\t"
           f"@$3 ld.global.u16 $0, [$1{at}];\n\t"
           "@$3 or.b32 $0, $0, $6;\n\t"
           f"@$4 ld.global.u16 $0, [$1{at_high}];\n\t"
           "@$4 shl.b32 $0, $0, 16;\n\t"
           "@$4 or.b32 $0, $0, $7;")
    return llvm.inline_asm(_i(32), [address, both, low_only, high_only, pad_word, pad_high, pad],
                           asm, "=r,l,b,b,b,0,r,r", has_side_effects=True)
