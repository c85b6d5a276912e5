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

Waiting on other blocks needs them to be running: a block takes a ticket (_exchange.py) rather
than using its block index, so the tickets handed out belong to blocks that are running or
done, and only the group of the last ticket can be incomplete. A launch is safe when one group
fits on the GPU at once (`fits`). The interpreter runs blocks one after another, so these
kernels run only on the GPU; the samples take their looped kernels there.

Workspace (`Workspace`): int64 partials (rows x SLOTS x K tagged words) and the int64 ticket
counter, zero before the first launch; no launch needs them reset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from _common import sm_count
from _exchange import all_tagged, tagged, take_ticket, untagged

import tilelang as ct

BLOCK, WARPS, PER_SM = 4096, 4, 4  # a block's chunk (two in flight), warps, blocks per SM


def claim_chunk(x, tickets, BLOCK):
    """(group, chunk, groups, chunks, tag) of this block: x's rows are cut into `chunks`
    chunks of BLOCK columns, the grid into `groups` groups of `chunks` blocks; group g takes
    chunk `chunk` of rows g, g + groups, ... Taken from a ticket (_exchange.py); `tag` marks
    this launch's partials."""
    chunks = ct.num_tiles(x, axis=1, shape=(1, BLOCK))
    taken, tag = take_ticket(tickets)
    return taken // chunks, taken % chunks, ct.num_blocks(0) // chunks, chunks, tag


def row_partials(partials, row, chunk, chunks, tag, part, SLOTS):
    """The (SLOTS, K) partials of the row's chunks once all `chunks` are in, this block's (the
    (1, K) float32 tile `part`) among them; slots past `chunks` read as zeros. Partials travel
    as tagged words (_exchange.py): with a counter and fences the exchange cost about 1.3 us per
    row, against 0.3 for the rest of a block's step (bf16, H200)."""
    k = part.shape[1]
    mine = (row * SLOTS + chunk) * k + ct.arange(k, dtype=ct.int32)[None, :]
    ct.atomic_xchg(partials, mine, tagged(part, tag), memory_order=ct.MemoryOrder.RELAXED)
    slot = ct.arange(SLOTS, dtype=ct.int32)[:, None]
    every = (row * SLOTS + slot) * k + ct.arange(k, dtype=ct.int32)[None, :]
    inside = slot < chunks
    while True:
        got = ct.atomic_or(partials, every, 0, memory_order=ct.MemoryOrder.RELAXED)
        if all_tagged(got, tag, inside):
            break
    return ct.where(inside, untagged(got), 0.0)


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


def config_for(configs: dict, x, n: int) -> tuple[int, ...] | None:
    """The sample's (BLOCK, warps, blocks per SM[, occupancy]) for rows of x's dtype
    (`configs` maps dtype names to them), or None where the sample does not split rows (a
    dtype it has not measured a gain for, or a row whose chunks do not fit the GPU at once)."""
    config = configs.get(str(x.dtype).rsplit(".", 1)[-1])
    return config if config is not None and fits(n, sm_count(), config[0]) else None


@dataclass
class Workspace:
    """The split kernels' int64 partials (rows x SLOTS x K words) and ticket counter, zero when
    made; every launch leaves the ticket counter at the next launch's number. One launch at a
    time uses a workspace (launches in one stream): two at once would share tickets."""

    partials: Any
    tickets: Any

    @classmethod
    def for_rows(cls, rows: int, n: int, block: int, k: int, device: str = "cuda"):
        import torch

        return cls(torch.zeros(rows * slots(n, block) * k, dtype=torch.int64, device=device),
                   torch.zeros(1, dtype=torch.int64, device=device))

    def args(self, rows: int, n: int, block: int, k: int) -> tuple[Any, Any]:
        """The arrays, for a launch over rows of n columns in chunks of `block`, K = k."""
        if rows * slots(n, block) * k > self.partials.shape[0]:
            raise ValueError(f"a workspace of {self.partials.shape[0]} partials cannot serve "
                             f"{rows} rows of {ct.cdiv(n, block)} chunks of {k}")
        return self.partials, self.tickets


def grid(rows: int, n: int, block: int = BLOCK, per_sm: int = PER_SM,
         sms: int | None = None) -> int:
    """Blocks of a launch: as many groups (one block per chunk) as `per_sm` blocks per SM
    make, at most one per row. `per_sm` must not exceed the kernel's occupancy (`launch` caps
    it): blocks beyond what the GPU holds at once start when a whole group has finished its
    rows, and the group of the last resident ticket waits for them (layer norm bf16, 4096
    columns, 4 warps: 0.639 ms sized for 4 blocks per SM where 3 fit, 0.503 for 3)."""
    chunks = ct.cdiv(n, block)
    return chunks * max(1, min(rows, per_sm * (sms or sm_count()) // chunks))


_resident: dict[tuple, int] = {}


def resident_per_sm(kernel, args: tuple) -> int:
    """Blocks of `kernel` an SM holds at once when launched with `args` (the loaded
    specialization's occupancy), remembered per kernel and argument dtypes and shapes."""
    key = (kernel, *((getattr(a, "dtype", a), getattr(a, "shape", None)) for a in args))
    per_sm = _resident.get(key)
    if per_sm is None:
        if len(_resident) > 256:  # shapes come and go: keep the table small
            _resident.clear()
        per_sm = _resident[key] = max(1, ct.resources(kernel, args).blocks_per_sm or 1)
    return per_sm


def launch(stream, kernel, rows: int, n: int, k: int, args: tuple,
           config: tuple[int, ...] = (BLOCK, WARPS, PER_SM),
           workspace: Workspace | None = None) -> int:
    """`kernel`, whose parameters are `args`, then the workspace (of K = `k` partial sums per
    chunk; made here when not given), then BLOCK and SLOTS, over `grid`'s blocks; `config` is
    (BLOCK, warps, blocks per SM[, occupancy hint]), its blocks per SM capped at what the
    compiled kernel's occupancy allows. Returns the number of blocks launched."""
    block, warps, per_sm, *occupancy = config
    ws = workspace or Workspace.for_rows(rows, n, block, k)
    hinted = kernel.replace_hints(num_warps=warps, occupancy=occupancy[0] if occupancy else None)
    full = (*args, *ws.args(rows, n, block, k), block, slots(n, block))
    blocks = grid(rows, n, block, min(per_sm, resident_per_sm(hinted, full)))
    ct.launch(stream, (blocks,), hinted, full)
    return blocks
