"""Sample: kernels across GPUs (symmetric memory): all-gather + GEMM, GEMM + reduce-scatter.

Launch with torchrun, one process per GPU (docs/distributed.md):

    torchrun --nproc-per-node 2 samples/allgather_gemm.py --check --bench

**All-gather + GEMM** (`allgather_gemm`). Rank r holds an (M_local, K) shard of A; every rank
computes C = allgather(A) @ B, (W * M_local, N). Each rank's symmetric buffer (allocated by
`torch.distributed._symmetric_memory`, mapped into every peer) has room for the whole gathered
A, W slots of M_local rows, and the rank's own shard lives in its own slot. One launch does
the gather and the product; its blocks take tickets (samples/_exchange.py) and the ticket says
the role:

- the first COPIERS tickets copy: each pulls (BM, K) row tiles of the peers' shards, straight
  from the peers' buffers (NVLink), into the same rows of this rank's buffer, and raises the
  tile's flag (a release: the block's stores are published first). Peers are taken in ring
  order from rank + 1, so that no two ranks read one peer at once when W = 2.
- the other tickets compute (BM, BN) output tiles: first every tile of the local shard (nothing
  to wait for), then the peers' rows in the order they are copied; a tile of a peer's rows
  waits for its flag (relaxed polls, then an acquire) and multiplies from local memory.

So the copy runs under the local shard's product, and each byte crosses NVLink once (a
kernel reading peers' tiles in its K loop would fetch each A tile once per column of output
tiles). Tickets, not block indices, decide the roles: a block that waits holds a ticket taken
after every copier's, so the copiers are running and it cannot wait forever. The flags hold the
launch's tag (the ticket counter's launch number), so they need no reset between launches.
Peers' shards must be in place before the launch: write the shard, then a barrier
(`dist.barrier()`), as for any collective on symmetric memory.

**GEMM + reduce-scatter** (`gemm_reduce_scatter`). K is split across ranks: rank q holds
A[:, K_q] (M x K_local, M = W * M_local) and B[K_q, :], and rank d ends with row block d of
C = A @ B, the sum over q of A_q[rows d] @ B_q. Rank q's GEMM computes the peers' row blocks
first and stores each float32 partial tile straight into the owning rank's symmetric buffer
(slot q of W): the stores go over NVLink while the GEMM goes on. After a barrier
(`handle.barrier()`: every peer's stores are in), each rank adds its W slots
(`splitk_gemm.sum_partials`) into its (M_local, N) output, in float32, rounded once.

`--check` runs both on fresh random inputs of awkward sizes (M_local not a multiple of the
tile), outputs poisoned with NaN, against NCCL (`all_gather_into_tensor`,
`reduce_scatter_tensor`) and cuBLAS (`torch.matmul`) on every rank. `--bench` times them
against the same NCCL + cuBLAS sequence. With one GPU, `torchrun --nproc-per-node 1` runs a
world of one. Without torchrun (`python samples/allgather_gemm.py`, as `make samples` runs
it) the sample says so and simulates 2 ranks in one process on the CPU interpreter (buffers
as NumPy arrays, ranks launched one after another; `--interpret W` for W ranks); `--bench`
without torchrun, or torchrun without a GPU per process, is an error (status 2).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
from _exchange import take_ticket
from splitk_gemm import REDUCE_TILE, sum_partials

import tilelang as ct

ZERO = ct.PaddingMode.ZERO
RELAXED = ct.MemoryOrder.RELAXED

BLOCK = (128, 256, 64)  # (BM, BN, BK) of the GEMMs on the GPU: 8 warps, wgmma
COPY_WIDTH = 2048  # columns per copy tile: (16, 2048) bf16 is 64 KB in flight per block
COPY_ROWS = 16


def copy_rows(src, dst, i, BM, CR, CW):
    """dst's BM rows of row tile i = src's, in (CR, CW) tiles."""
    for r in range(BM // CR):
        for k in range(ct.num_tiles(src, axis=1, shape=(CR, CW))):
            t = ct.load(src, index=(i * (BM // CR) + r, k), shape=(CR, CW), padding_mode=ZERO)
            ct.store(dst, index=(i * (BM // CR) + r, k), tile=t)


def wait_for(flags, slot, tag):
    """Returns once flags[slot] holds `tag`; an acquire then covers the block's later loads."""
    while True:
        if ct.atomic_or(flags, slot, 0, memory_order=RELAXED) == tag:
            break
    ct.atomic_or(flags, slot, 0, memory_order=ct.MemoryOrder.ACQUIRE)


def grouped(t, tiles_m, tiles_n, GROUP):
    """Output tile (i, j) of the t-th block of a slot: GROUP row tiles at a time, down the rows
    first, so that the blocks running together share B's column tiles in L2."""
    first = t // (GROUP * tiles_n) * GROUP
    rows = ct.minimum(tiles_m - first, GROUP)
    return first + t % (GROUP * tiles_n) % rows, t % (GROUP * tiles_n) // rows


@ct.kernel(num_warps=8)
def allgather_gemm_kernel(peers, mine, a, b, c, flags, tickets, m_local, RANK: ct.Constant[int],
                          BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int],
                          CR: ct.Constant[int], CW: ct.Constant[int],
                          COPIERS: ct.Constant[int], GROUP: ct.Constant[int]):
    """c = allgather(A) @ b. `peers[q]`: rank q's buffer (W * m_local, K), its shard in slot q;
    `mine` and `a`: this rank's buffer twice (the copiers store through `mine`, the GEMM reads
    `a`: the flags order them); `flags` (int64, W * cdiv(m_local, BM)) and `tickets` (int64,
    1): zero before the first launch."""
    world = len(peers)
    ticket, tag = take_ticket(tickets)
    tiles_m = ct.cdiv(m_local, BM)
    if ticket < COPIERS:
        for item in range(ticket, (world - 1) * tiles_m, COPIERS):
            p = (RANK + 1 + item // tiles_m) % world
            i = item % tiles_m
            lo, hi = p * m_local, (p + 1) * m_local
            copy_rows(peers[p].slice(0, lo, hi), mine.slice(0, lo, hi), i, BM, CR, CW)
            ct.atomic_xchg(flags, p * tiles_m + i, tag, memory_order=ct.MemoryOrder.RELEASE)
    else:
        tiles_n = ct.cdiv(c.shape[1], BN)
        t = ticket - COPIERS
        p = (RANK + t // (tiles_m * tiles_n)) % world  # this rank's own rows first
        i, j = grouped(t % (tiles_m * tiles_n), tiles_m, tiles_n, GROUP)
        if p != RANK:
            wait_for(flags, p * tiles_m + i, tag)
        lo, hi = p * m_local, (p + 1) * m_local
        rows = a.slice(0, lo, hi)
        acc = ct.zeros((BM, BN), ct.float32)
        for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
            x = ct.load(rows, index=(i, k), shape=(BM, BK), padding_mode=ZERO)
            w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=ZERO)
            acc = ct.mma(x, w, acc)
        ct.store(c.slice(0, lo, hi), index=(i, j), tile=acc.astype(c.dtype))


@ct.kernel(num_warps=8)
def partial_gemm_kernel(a, b, parts, m_local, RANK: ct.Constant[int], BM: ct.Constant[int],
                        BN: ct.Constant[int], BK: ct.Constant[int]):
    """parts[d] slot RANK = a[rows of d] @ b in float32, for every rank d: block (i, j, s) does
    rank d = RANK + 1 + s (mod W), so the peers' row blocks come first and this rank's last.
    `parts[d]`: rank d's buffer (W * m_local, N)."""
    world = len(parts)
    i, j = ct.bid(0), ct.bid(1)
    d = (RANK + 1 + ct.bid(2)) % world
    if i * BM < m_local:
        rows = a.slice(0, d * m_local, (d + 1) * m_local)
        acc = ct.zeros((BM, BN), ct.float32)
        for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
            x = ct.load(rows, index=(i, k), shape=(BM, BK), padding_mode=ZERO)
            w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=ZERO)
            acc = ct.mma(x, w, acc)
        slot = parts[d].slice(0, RANK * m_local, (RANK + 1) * m_local)
        ct.store(slot, index=(i, j), tile=acc)


# ---------------------------------------------------------------------------------------------
# host side


@dataclass
class Config:
    block: tuple[int, int, int] = BLOCK
    copy_tile: tuple[int, int] = (COPY_ROWS, COPY_WIDTH)
    copiers: int = 16
    group: int = 8  # row tiles per group of the GEMM's tile order


def copy_tile_for(k: int, block_m: int, width: int = COPY_WIDTH) -> tuple[int, int]:
    """(CR, CW) of the copy: CW a power of two, at most `width` and not much wider than K;
    CR divides BM."""
    cw = min(width, 1 << max(4, (k - 1).bit_length()))
    return min(COPY_ROWS, block_m), cw


class AllGatherGemm:
    """C = allgather(A) @ B over a symmetric buffer: `shard` is this rank's (m_local, K) input
    (write it, barrier, then call)."""

    def __init__(self, m_local: int, k: int, dtype: Any, comm: Any, config: Config):
        self.comm, self.config, self.m_local = comm, config, m_local
        world, rank = comm.world_size, comm.rank
        self.buffer = comm.empty((world * m_local, k), dtype)
        self.peers = comm.peer_buffers(self.buffer)
        self.shard = self.buffer[rank * m_local:(rank + 1) * m_local]
        bm = config.block[0]
        self.flags = comm.zeros((world * ct.cdiv(m_local, bm),), "int64")
        self.tickets = comm.zeros((1,), "int64")

    def grid(self, n: int) -> int:
        bm, bn, _ = self.config.block
        return (self.config.copiers
                + self.comm.world_size * ct.cdiv(self.m_local, bm) * ct.cdiv(n, bn))

    def __call__(self, b: Any, c: Any, stream: Any = None) -> None:
        bm, bn, bk = self.config.block
        cr, cw = self.config.copy_tile
        args = (self.peers, self.buffer, self.buffer, b, c, self.flags, self.tickets,
                self.m_local, self.comm.rank, bm, bn, bk, cr, cw, self.config.copiers,
                self.config.group)
        ct.launch(stream, (self.grid(b.shape[1]),), self.comm.kernel(allgather_gemm_kernel),
                  args)


class GemmReduceScatter:
    """This rank's (m_local, N) row block of A @ B, K split across ranks: `a` (W * m_local,
    K_local) and `b` (K_local, N) are this rank's parts."""

    def __init__(self, m_local: int, n: int, comm: Any, config: Config):
        self.comm, self.config, self.m_local = comm, config, m_local
        world = comm.world_size
        self.buffer = comm.empty((world * m_local, n), "float32")
        self.peers = comm.peer_buffers(self.buffer)
        self.slots = self.buffer.reshape(world, m_local, n)  # the partial of rank q in slot q

    def __call__(self, a: Any, b: Any, out: Any, stream: Any = None) -> None:
        bm, bn, bk = self.config.block
        world, n = self.comm.world_size, b.shape[1]
        grid = (ct.cdiv(self.m_local, bm), ct.cdiv(n, bn), world)
        ct.launch(stream, grid, self.comm.kernel(partial_gemm_kernel),
                  (a, b, self.peers, self.m_local, self.comm.rank, bm, bn, bk))
        self.comm.barrier_after_stores()
        rm, rn = REDUCE_TILE
        ct.launch(stream, (ct.cdiv(self.m_local, rm), ct.cdiv(n, rn)),
                  self.comm.kernel(sum_partials), (self.slots, out, rm, rn, world))


# ---------------------------------------------------------------------------------------------
# the GPU: torch.distributed and symmetric memory


class TorchComm:
    """One rank of a torchrun job: NCCL process group, symmetric memory, this rank's GPU."""

    def __init__(self) -> None:
        import torch
        import torch.distributed as dist

        self.torch, self.dist = torch, dist
        local = int(os.environ.get("LOCAL_RANK", "0"))
        self.device = torch.device("cuda", local)
        torch.cuda.set_device(self.device)
        dist.init_process_group("nccl", device_id=self.device)
        self.group = dist.group.WORLD
        self.rank, self.world_size = dist.get_rank(), dist.get_world_size()
        self._handles: list[Any] = []

    def empty(self, shape: tuple[int, ...], dtype: Any) -> Any:
        import torch.distributed._symmetric_memory as symm_mem

        dtype = getattr(self.torch, dtype) if isinstance(dtype, str) else dtype
        return symm_mem.empty(*shape, dtype=dtype, device=self.device)

    def peer_buffers(self, buffer: Any) -> list[Any]:
        """Every rank's `buffer` (this rank's is `buffer` itself), mapped on this GPU."""
        import torch.distributed._symmetric_memory as symm_mem

        handle = symm_mem.rendezvous(buffer, self.group.group_name)
        self._handles.append(handle)
        return [buffer if q == self.rank else
                handle.get_buffer(q, tuple(buffer.shape), buffer.dtype, 0)
                for q in range(self.world_size)]

    def zeros(self, shape: tuple[int, ...], dtype: str) -> Any:
        return self.torch.zeros(shape, dtype=getattr(self.torch, dtype), device=self.device)

    def kernel(self, k: Any) -> Any:
        return k

    def barrier_after_stores(self) -> None:
        """Every rank's stores into the symmetric buffers are done and visible (in stream
        order): symmetric memory's own barrier, a small kernel."""
        self._handles[-1].barrier()

    def barrier(self) -> None:
        self.dist.barrier(device_ids=[self.device.index])


# ---------------------------------------------------------------------------------------------
# the CPU: W ranks simulated in one process on the interpreter


class SimComm:
    """Rank `rank` of `world` simulated ranks; `shared` holds every rank's buffers in order of
    allocation, so peer_buffers finds the peers' copies."""

    def __init__(self, rank: int, world: int, shared: dict[int, list[np.ndarray]]):
        self.rank, self.world_size, self.shared, self._count = rank, world, shared, 0

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        buf = np.full(shape, np.nan, dtype=_np_dtype(dtype))
        self.shared.setdefault(self._count, [None] * self.world_size)[self.rank] = buf
        self._count += 1
        return buf

    def peer_buffers(self, buffer: np.ndarray) -> list[np.ndarray]:
        for bufs in self.shared.values():
            if any(b is buffer for b in bufs):
                return bufs  # filled in by the time a launch reads them
        raise AssertionError("not a symmetric buffer")

    def zeros(self, shape: tuple[int, ...], dtype: str) -> np.ndarray:
        return np.zeros(shape, _np_dtype(dtype))

    def kernel(self, k: Any) -> Any:
        return k.replace_hints(interpret=True)

    def barrier_after_stores(self) -> None:
        pass


def _np_dtype(dtype: Any) -> Any:
    import ml_dtypes

    return ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)


# ---------------------------------------------------------------------------------------------
# checks


def check_allgather_gemm(comm: TorchComm, m_local: int, n: int, k: int, config: Config) -> None:
    torch, dist = comm.torch, comm.dist
    op = AllGatherGemm(m_local, k, torch.bfloat16, comm, config)
    b = torch.randn(k, n, device=comm.device).to(torch.bfloat16)
    dist.broadcast(b, 0)
    for launch in range(2):  # a second launch: the flags and tickets carry over
        shard = (torch.randn(m_local, k, device=comm.device) / math.sqrt(k)).to(torch.bfloat16)
        op.shard.copy_(shard)
        c = torch.full((comm.world_size * m_local, n), float("nan"), dtype=torch.bfloat16,
                       device=comm.device)
        comm.barrier()
        op(b, c)
        gathered = torch.empty(comm.world_size * m_local, k, dtype=shard.dtype,
                               device=comm.device)
        dist.all_gather_into_tensor(gathered, shard)
        want = torch.matmul(gathered, b)
        torch.cuda.synchronize()
        name = f"allgather_gemm[{comm.world_size}x{m_local}x{k} @ {k}x{n}, launch {launch}]"
        report(comm, name, c, want)
        comm.barrier()  # peers are done reading this rank's shard before it is overwritten


def check_gemm_reduce_scatter(comm: TorchComm, m_local: int, n: int, k_local: int,
                              config: Config) -> None:
    torch, dist = comm.torch, comm.dist
    op = GemmReduceScatter(m_local, n, comm, config)
    m = comm.world_size * m_local
    for launch in range(2):
        a = (torch.randn(m, k_local, device=comm.device) / math.sqrt(k_local)).to(torch.bfloat16)
        b = torch.randn(k_local, n, device=comm.device).to(torch.bfloat16)
        out = torch.full((m_local, n), float("nan"), dtype=torch.bfloat16, device=comm.device)
        comm.barrier()
        op(a, b, out)
        full = torch.matmul(a.float(), b.float())  # float32 partials, like the kernel's
        want = torch.empty(m_local, n, device=comm.device)
        dist.reduce_scatter_tensor(want, full)
        torch.cuda.synchronize()
        name = (f"gemm_reduce_scatter[{m}x{comm.world_size * k_local} @ "
                f"{comm.world_size * k_local}x{n}, launch {launch}]")
        report(comm, name, out, want)
        comm.barrier()


def report(comm: TorchComm, name: str, got: Any, want: Any) -> None:
    torch = comm.torch
    unwritten = int(got.isnan().sum())
    error = (got.float() - want.float()).abs().max().item() if got.numel() else 0.0
    scale = want.float().abs().max().item() if want.numel() else 0.0
    ok = unwritten == 0 and error <= 1e-2 * max(scale, 1.0)
    flags = torch.tensor([0 if ok else 1], device=comm.device)
    comm.dist.all_reduce(flags)
    print(f"rank {comm.rank}: {name}: {'OK' if ok else 'FAILED'} ({unwritten} unwritten, max "
          f"error {error:.3g}, max |want| {scale:.3g})", flush=True)
    if flags.item():
        raise SystemExit(f"rank {comm.rank}: {name}: {flags.item()} rank(s) failed")


# ---------------------------------------------------------------------------------------------
# benchmark


def time_op(comm: TorchComm, op: Any, warmup: int, iters: int) -> float:
    """The median over `iters` runs of the slowest rank's time (CUDA events, ms); a barrier
    before each run, so that every run starts with every rank ready."""
    torch = comm.torch
    for _ in range(warmup):
        comm.barrier()
        op()
    times = []
    for _ in range(iters):
        comm.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        op()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    slowest = torch.tensor(times, device=comm.device)
    comm.dist.all_reduce(slowest, op=comm.dist.ReduceOp.MAX)
    return float(slowest.median().item())


def bench(comm: TorchComm, shapes: list[tuple[int, int, int]], config: Config, warmup: int,
          iters: int) -> list[dict[str, Any]]:
    rows = []
    for shape in shapes:
        rows.append(bench_allgather_gemm(comm, shape, config, warmup, iters))
        rows.append(bench_gemm_reduce_scatter(comm, shape, config, warmup, iters))
    return rows


def bench_allgather_gemm(comm: TorchComm, shape: tuple[int, int, int], config: Config,
                         warmup: int, iters: int) -> dict[str, Any]:
    torch, dist = comm.torch, comm.dist
    (m_local, n, k), world = shape, comm.world_size
    ag = AllGatherGemm(m_local, k, torch.bfloat16, comm, config)
    ag.shard.copy_(torch.randn(m_local, k, device=comm.device).to(torch.bfloat16))
    b = torch.randn(k, n, device=comm.device).to(torch.bfloat16)
    c = torch.empty(world * m_local, n, dtype=torch.bfloat16, device=comm.device)
    shard = ag.shard.clone()
    gathered = torch.empty(world * m_local, k, dtype=torch.bfloat16, device=comm.device)

    def nccl_cublas() -> None:
        dist.all_gather_into_tensor(gathered, shard)
        torch.matmul(gathered, b, out=c)

    ours = time_op(comm, lambda: ag(b, c), warmup, iters)
    nccl = time_op(comm, nccl_cublas, warmup, iters)
    gemm = time_op(comm, lambda: torch.matmul(gathered, b, out=c), warmup, iters)
    return dict(op="allgather+gemm", m_local=m_local, n=n, k=k, ours_ms=ours,
                nccl_cublas_ms=nccl, cublas_only_ms=gemm,
                tflops=2 * world * m_local * n * k / ours / 1e9)


def bench_gemm_reduce_scatter(comm: TorchComm, shape: tuple[int, int, int], config: Config,
                              warmup: int, iters: int) -> dict[str, Any]:
    """K is the whole reduction: each rank holds K / W of it."""
    torch, dist = comm.torch, comm.dist
    (m_local, n, k), world = shape, comm.world_size
    k_local = max(1, k // world)
    rs = GemmReduceScatter(m_local, n, comm, config)
    a = torch.randn(world * m_local, k_local, device=comm.device).to(torch.bfloat16)
    b = torch.randn(k_local, n, device=comm.device).to(torch.bfloat16)
    out = torch.empty(m_local, n, dtype=torch.bfloat16, device=comm.device)
    full = torch.empty(world * m_local, n, dtype=torch.bfloat16, device=comm.device)

    def nccl_cublas() -> None:
        torch.matmul(a, b, out=full)
        dist.reduce_scatter_tensor(out, full)

    ours = time_op(comm, lambda: rs(a, b, out), warmup, iters)
    nccl = time_op(comm, nccl_cublas, warmup, iters)
    gemm = time_op(comm, lambda: torch.matmul(a, b, out=full), warmup, iters)
    return dict(op="gemm+reduce_scatter", m_local=m_local, n=n, k=k, ours_ms=ours,
                nccl_cublas_ms=nccl, cublas_only_ms=gemm,
                tflops=2 * world * m_local * n * k_local / ours / 1e9)


def format_table(rows: list[dict[str, Any]], world: int) -> str:
    lines = [f"{world} GPUs, bfloat16; ms: median of the slowest rank; ratio = NCCL+cuBLAS / "
             "ours (> 1: ours is faster)",
             f"{'op':<20} {'M_local':>7} {'N':>6} {'K':>6} {'ours':>8} {'NCCL+cuBLAS':>11} "
             f"{'cuBLAS':>8} {'ratio':>6} {'TFLOP/s':>8}"]
    for r in rows:
        lines.append(f"{r['op']:<20} {r['m_local']:>7} {r['n']:>6} {r['k']:>6} "
                     f"{r['ours_ms']:>8.3f} {r['nccl_cublas_ms']:>11.3f} "
                     f"{r['cublas_only_ms']:>8.3f} {r['nccl_cublas_ms'] / r['ours_ms']:>6.2f} "
                     f"{r['tflops']:>8.1f}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# the CPU simulation


def simulate(world: int, m_local: int, n: int, k: int, config: Config | None = None,
             seed: int = 0) -> None:
    """Both kernels for `world` ranks on the interpreter, ranks launched one after another,
    checked against NumPy; outputs poisoned with NaN."""
    import ml_dtypes

    config = config or Config(block=(32, 32, 16), copy_tile=(16, 32), copiers=2, group=2)
    bf16 = ml_dtypes.bfloat16
    rng = np.random.default_rng(seed)
    shared: dict[int, list[np.ndarray]] = {}
    comms = [SimComm(r, world, shared) for r in range(world)]
    ops = [AllGatherGemm(m_local, k, "bfloat16", comm, config) for comm in comms]
    b = rng.standard_normal((k, n)).astype(bf16)
    for launch in range(2):
        shards = [(rng.standard_normal((m_local, k)) / math.sqrt(k)).astype(bf16)
                  for _ in range(world)]
        for op, shard in zip(ops, shards, strict=True):
            op.shard[...] = shard
        want = np.concatenate(shards).astype(np.float64) @ b.astype(np.float64)
        for r, op in enumerate(ops):
            c = np.full((world * m_local, n), np.nan, bf16)
            op(b, c)
            _check_close(f"allgather_gemm rank {r} of {world}, launch {launch}", c, want)
    k_local = max(1, k // world)
    rsops = [GemmReduceScatter(m_local, n, comm, config) for comm in comms]
    a = [(rng.standard_normal((world * m_local, k_local)) / math.sqrt(k_local)).astype(bf16)
         for _ in range(world)]
    bs = [rng.standard_normal((k_local, n)).astype(bf16) for _ in range(world)]
    full = sum(x.astype(np.float64) @ y.astype(np.float64) for x, y in zip(a, bs, strict=True))
    outs = [np.full((m_local, n), np.nan, bf16) for _ in range(world)]
    for r, op in enumerate(rsops):  # every rank's GEMM, then (the barrier) every rank's sum
        bm, bn, bk = config.block
        ct.launch(None, (ct.cdiv(m_local, bm), ct.cdiv(n, bn), world),
                  comms[r].kernel(partial_gemm_kernel),
                  (a[r], bs[r], op.peers, m_local, r, bm, bn, bk))
    for r, op in enumerate(rsops):
        rm, rn = REDUCE_TILE
        ct.launch(None, (ct.cdiv(m_local, rm), ct.cdiv(n, rn)), comms[r].kernel(sum_partials),
                  (op.slots, outs[r], rm, rn, world))
        _check_close(f"gemm_reduce_scatter rank {r} of {world}", outs[r],
                     full[r * m_local:(r + 1) * m_local])


def _check_close(name: str, got: np.ndarray, want: np.ndarray) -> None:
    got64 = got.astype(np.float64)
    if np.isnan(got64).any():
        raise AssertionError(f"{name}: {int(np.isnan(got64).sum())} elements were never written")
    np.testing.assert_allclose(got64, want, rtol=1e-2, atol=1e-2, err_msg=name)
    print(f"{name}: OK ({got.size} elements match)")


# ---------------------------------------------------------------------------------------------
# command line

CHECK_SHAPES = [(300, 520, 392), (1, 256, 128), (77, 130, 200)]  # (M_local, N, K): awkward
BENCH_SHAPES = [(4096, 4096, 4096), (2048, 8192, 4096), (8192, 8192, 8192)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="launch: torchrun --nproc-per-node N samples/allgather_gemm.py --check --bench")
    parser.add_argument("--check", action="store_true",
                        help="check both kernels against NCCL + cuBLAS (the default when "
                             "neither --check nor --bench is given)")
    parser.add_argument("--bench", action="store_true",
                        help="time both kernels against NCCL + cuBLAS")
    parser.add_argument("--shape", type=_shape, action="append", default=None,
                        metavar="M_LOCAL,N,K", help="a shape to run (repeatable)")
    parser.add_argument("--copiers", type=int, default=Config.copiers,
                        help="blocks of the all-gather kernel that copy (default %(default)s)")
    parser.add_argument("--iters", type=int, default=50, help="timed runs per measurement")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--interpret", type=int, default=None, metavar="W",
                        help="simulate W ranks on the CPU interpreter instead (no GPU needed)")
    args = parser.parse_args(argv)
    if args.copiers < 1:
        parser.error("--copiers must be at least 1")
    if not args.check and not args.bench:
        args.check = True
    return args


def _shape(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected M_LOCAL,N,K (positive ints), got {text!r}")
    m, n, k = (int(p) for p in parts)
    return m, n, k


TORCHRUN_HINT = ("the GPU run is `torchrun --nproc-per-node N samples/allgather_gemm.py "
                 "--check --bench`, one process per GPU")


def under_torchrun() -> bool:
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ and "LOCAL_RANK" in os.environ


def gpu_problem() -> str | None:
    """Why this torchrun process cannot run on its GPU (None when it can)."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA GPU is visible to this process (`--interpret W` simulates W ranks)"
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if local >= torch.cuda.device_count():
        return (f"LOCAL_RANK {local} but only {torch.cuda.device_count()} GPU(s): "
                "--nproc-per-node must not exceed the GPU count")
    import torch.distributed as dist

    if not dist.is_nccl_available():
        return "this PyTorch has no NCCL backend"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.interpret is None and not under_torchrun():
        if args.bench:
            print(f"allgather_gemm: --bench needs GPUs: {TORCHRUN_HINT}", file=sys.stderr)
            return 2
        print(f"allgather_gemm: not launched by torchrun, so 2 ranks are simulated on the CPU "
              f"interpreter ({TORCHRUN_HINT})")
        args.interpret = 2
    if args.interpret is not None:
        os.environ["TILELANG_INTERPRET"] = "1"
        for m_local, n, k in args.shape or [(37, 40, 50)]:
            simulate(args.interpret, m_local, n, k)
        return 0
    problem = gpu_problem()
    if problem:
        print(f"allgather_gemm: {problem}", file=sys.stderr)
        return 2
    comm = TorchComm()
    config = Config(copiers=args.copiers)
    if comm.rank == 0:
        import torch

        print(f"{comm.world_size} rank(s) on {torch.cuda.get_device_name()}", flush=True)
    try:
        if args.check:
            for m_local, n, k in args.shape or CHECK_SHAPES:
                config.copy_tile = copy_tile_for(k, config.block[0])
                check_allgather_gemm(comm, m_local, n, k, config)
                check_gemm_reduce_scatter(comm, m_local, n, max(1, k // comm.world_size),
                                          config)
            if comm.rank == 0:
                print("check: passed", flush=True)
        if args.bench:
            config.copy_tile = (COPY_ROWS, COPY_WIDTH)
            rows = bench(comm, args.shape or BENCH_SHAPES, config, args.warmup, args.iters)
            if comm.rank == 0:
                print(format_table(rows, comm.world_size), flush=True)
    finally:
        comm.barrier()
        comm.dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
