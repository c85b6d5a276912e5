"""Rows split across blocks: the device helpers and workspace of the `*_split` row kernels.

A row too long for one block's registers (65536 columns) is cut into chunks of BLOCK columns,
and a group of blocks, one per chunk, works through rows together: each block loads its chunk
once and keeps it in registers, reduces it to a few float32 numbers (its partial sums),
publishes them, waits until every chunk of the row has published, combines them and writes its
part of the result. One read and one write of the data, where a block sweeping the whole row
reads it twice (the second time from L2). A group strides over the rows with the next row's
chunk loaded before the current one's exchange, so the wait overlaps a load: with one block
per (row, chunk) the blocks of a row started at different times and the first ones held their
registers idle until the last had loaded (0.5-0.7 of the looped kernels' speed, H200, bf16).

Waiting on other blocks needs them to be running: a block takes a ticket (an atomic counter)
rather than using its block index, so the tickets handed out belong to blocks that are running
or done, and only the group of the last ticket can be incomplete. A launch is safe when one
group fits on the GPU at once (`fits`). The interpreter runs blocks one after another, so these
kernels run only on the GPU; the samples take their looped kernels there.

Workspace (`Workspace`): float32 partials (rows, SLOTS, K), an int32 counter per row and the
ticket counter, zero before the first launch; every launch leaves the counters zero again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from _common import sm_count

import tilelang as ct

DEVICE = ct.MemoryScope.DEVICE
BLOCK, WARPS, PER_SM = 8192, 8, 2  # a block's chunk (two in flight), warps, blocks per SM


def claim_chunk(x, tickets, BLOCK):
    """(group, chunk, groups, chunks) of this block: x's rows are cut into `chunks` chunks of
    BLOCK columns, the grid into `groups` groups of `chunks` blocks; group g takes chunk `chunk`
    of rows g, g + groups, ... Taken from a ticket; the block that takes the last ticket sets
    the counter back to 0."""
    chunks = ct.num_tiles(x, axis=1, shape=(1, BLOCK))
    ticket = ct.atomic_add(tickets, 0, 1, memory_order=ct.MemoryOrder.RELAXED)
    if ticket == ct.num_blocks(0) - 1:
        ct.atomic_xchg(tickets, 0, 0, memory_order=ct.MemoryOrder.RELAXED)
    return ticket // chunks, ticket % chunks, ct.num_blocks(0) // chunks, chunks


def row_partials(partials, counters, row, chunk, chunks, part, SLOTS):
    """The (SLOTS, K) partials of the row's chunks once all `chunks` are in, this block's (the
    (1, K) tile `part`) among them; slots past `chunks` read as zeros.

    The counter counts arrivals (the release publishes this block's partial; the acquire that
    sees `chunks` makes every other partial visible), then departures: the last block to leave
    sets it back to 0 for the next launch."""
    k = part.shape[1]
    ct.store(partials, index=(row, chunk, 0), tile=ct.reshape(part, (1, 1, k)))
    ct.atomic_add(counters, row, 1, memory_order=ct.MemoryOrder.ACQ_REL, memory_scope=DEVICE)
    while ct.atomic_add(counters, row, 0, memory_order=ct.MemoryOrder.ACQUIRE,
                        memory_scope=DEVICE) < chunks:
        pass
    parts = ct.load(partials, index=(row, 0, 0), shape=(1, SLOTS, k),
                    padding_mode=ct.PaddingMode.ZERO)
    if ct.atomic_add(counters, row, 1, memory_order=ct.MemoryOrder.RELAXED) == 2 * chunks - 1:
        ct.atomic_xchg(counters, row, 0, memory_order=ct.MemoryOrder.RELAXED)
    inside = ct.arange(SLOTS, dtype=ct.int32)[:, None] < chunks
    return ct.where(inside, ct.reshape(parts, (SLOTS, k)), 0.0)


def column(parts, j):
    """Column j of an (S, K) tile, as (S, 1)."""
    return ct.extract(parts, index=(0, j), shape=(parts.shape[0], 1))


def slots(n: int, block: int) -> int:
    """SLOTS for rows of n columns in chunks of `block`: the chunk count rounded up to a power of
    two (a tile's extent)."""
    return 1 << (ct.cdiv(n, block) - 1).bit_length()


def fits(n: int, sms: int, block: int = BLOCK) -> bool:
    """Whether a row's chunks can all run at once (one block per SM at least)."""
    return ct.cdiv(n, block) <= sms


def pays(x, n: int) -> bool:
    """Whether the samples split rows of n columns of x: float32 rows that fit. Measured at
    4096 x 65536 (H200, against the looped kernels' best configuration in the same run):
    float32 softmax 0.72 ms against 0.78, RMS norm 0.70 against 0.79; bfloat16 slower (softmax
    0.50 against 0.38, RMS norm 0.48 against 0.35), where the looped kernels' second sweep,
    from L2, costs half as much per element as the exchange."""
    return str(x.dtype).endswith("float32") and fits(n, sm_count())


@dataclass
class Workspace:
    """Partials, per-row counters and the ticket counter of the split kernels (all zero)."""

    partials: Any
    counters: Any
    tickets: Any

    @classmethod
    def for_rows(cls, rows: int, n: int, block: int, k: int, device: str = "cuda"):
        import torch

        return cls(torch.zeros((rows, slots(n, block), k), dtype=torch.float32, device=device),
                   torch.zeros(rows, dtype=torch.int32, device=device),
                   torch.zeros(1, dtype=torch.int32, device=device))

    def args(self) -> tuple[Any, Any, Any]:
        return self.partials, self.counters, self.tickets


def grid(rows: int, n: int, block: int = BLOCK, per_sm: int = PER_SM,
         sms: int | None = None) -> int:
    """Blocks of a launch: as many groups (one block per chunk) as `per_sm` blocks per SM
    make, at most one per row."""
    chunks = ct.cdiv(n, block)
    return chunks * max(1, min(rows, per_sm * (sms or sm_count()) // chunks))


def launch(stream, kernel, rows: int, n: int, k: int, args: tuple, block: int = BLOCK,
           warps: int = WARPS, workspace: Workspace | None = None, per_sm: int = PER_SM) -> None:
    """`kernel`, whose parameters are `args`, then the workspace (of K = `k` partial sums per
    chunk; made here when not given), then BLOCK and SLOTS, over `grid`'s blocks."""
    ws = workspace or Workspace.for_rows(rows, n, block, k)
    ct.launch(stream, (grid(rows, n, block, per_sm),), kernel.replace_hints(num_warps=warps),
              (*args, *ws.args(), block, slots(n, block)))
