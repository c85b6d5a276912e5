"""`tilelang.resources(kernel, args)`: the figures of the specialization a launch with `args`
runs, loaded on the device and read from the driver, without launching it."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.runtime.state import state_of

torch = pytest.importorskip("torch")


@ct.kernel
def _row_sums(x, y, BLOCK: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, BLOCK), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0),), tile=ct.sum(t, axis=1))


@pytest.mark.parametrize("warps, block", [(4, 1024), (8, 4096), (16, 16384)])
def test_resources_agree_with_the_driver_and_launch_nothing(warps, block):
    from cuda.bindings import driver

    kernel = _row_sums.replace_hints(num_warps=warps)
    x = torch.randn(37, 5000, device="cuda")
    y = torch.full((37,), float("nan"), device="cuda")
    args = (x, y, block)
    got = ct.resources(kernel, args)
    torch.cuda.synchronize()
    assert torch.isnan(y).all()  # loaded, not launched
    launchers = list(state_of(kernel).launchers.values())
    assert len(launchers) == 1
    loaded = launchers[0].loaded
    err, per_sm = driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        driver.CUfunction(loaded.handle), 32 * warps, loaded.shared)
    assert err == driver.CUresult.CUDA_SUCCESS
    assert got.threads == 32 * warps and got.registers > 0 and got.shared_bytes >= loaded.shared
    assert got.arch == f"sm_{''.join(map(str, torch.cuda.get_device_capability()))}"
    assert got.blocks_per_sm == per_sm >= 1
    # the launch afterwards runs the specialization resources() loaded
    ct.launch(torch.cuda.current_stream(), (37,), kernel, args)
    torch.testing.assert_close(y, x[:, :block].sum(1), rtol=1e-4, atol=1e-3)
    assert len(state_of(kernel).launchers) == 1


def test_resources_check_arguments_as_a_launch_does():
    with pytest.raises(ct.TileArgumentError, match="`x`"):
        ct.resources(_row_sums, (torch.randn(4, 8), torch.empty(4, device="cuda"), 8))
