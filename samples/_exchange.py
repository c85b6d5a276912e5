"""Blocks that wait for other blocks' results: tickets and tagged words.

- `take_ticket`: a block's place from an int64 counter (the launch's number in the high 32 bits,
  the tickets taken in the low 32) instead of its block index. The tickets handed out belong to
  blocks that are running or done, so a block that waits only for blocks of earlier tickets (or
  of its own group, when a group fits the GPU at once) cannot wait forever. The block that takes
  a launch's last ticket starts the next launch's number, so the counter needs no reset.
- `tagged` / `untagged` / `all_tagged`: a float32 value travels as one 64-bit word, the launch's
  tag in its high half and the float's bits in its low half, written with relaxed atomics and
  polled with relaxed loads (`atomic_or(..., 0)`, which tilelang issues as `ld.relaxed`): a word
  that carries this launch's tag carries this launch's value, so no fence has to order a value
  before a flag (a fence waits for the block's earlier stores), and no flag has to be reset.
"""

from __future__ import annotations

import tilelang as ct

RELAXED = ct.MemoryOrder.RELAXED


def take_ticket(tickets):
    """(ticket, tag): this block's ticket in the launch (0, 1, ...) and the launch's tag (its
    number + 1, so that a zeroed workspace holds no tagged word). `tickets`: int64, one element,
    zero before the first launch."""
    ticket = ct.atomic_add(tickets, 0, 1, memory_order=RELAXED)
    launch, taken = ticket >> 32, ticket & 0xFFFFFFFF
    if taken == ct.num_blocks(0) * ct.num_blocks(1) * ct.num_blocks(2) - 1:
        ct.atomic_xchg(tickets, 0, (launch + 1) << 32, memory_order=RELAXED)
    return taken, launch + 1


def tagged(values, tag):
    """int64 words of float32 `values`, each with `tag` in its high half."""
    return (ct.bitcast(values, ct.int32).astype(ct.int64) & 0xFFFFFFFF) | (tag << 32)


def untagged(words):
    """The float32 values of tagged words."""
    return ct.bitcast((words & 0xFFFFFFFF).astype(ct.int32), ct.float32)


def all_tagged(words, tag, inside):
    """Whether every word where `inside` carries `tag` (a scalar condition)."""
    return ct.min(ct.where(inside & ((words >> 32) != tag), 0, 1)) == 1
