"""autotune.json: a lookup parses the file once per version of it (each kernel's first launch
looks its choice up), and sees every change a writer makes."""

from __future__ import annotations

import json

import pytest

from tilelang.tune import records


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the file's parses."""
    count: list[int] = []
    real = json.loads

    def counting(text, *args, **kwargs):
        count.append(1)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(records.json, "loads", counting)
    return count


def entry(us: float) -> dict:
    return {"config": {"kwargs": {"BLOCK": 64}, "hints": {}}, "median_us": us}


def test_lookups_parse_the_file_once_per_version(parses) -> None:
    records.store("m.k", "fp", "GPU", "[1]", entry(1.0))
    parses.clear()
    assert records.lookup("m.k", "fp", "GPU", "[1]") == entry(1.0)
    assert records.lookup("m.k", "fp", "GPU", "[2]") is None
    assert records.lookup("m.other", "fp", "GPU", "[1]") is None
    assert len(parses) == 1
    records.store("m.k", "fp", "GPU", "[2]", entry(2.0))  # a writer replaces the file
    assert records.lookup("m.k", "fp", "GPU", "[2]") == entry(2.0)
    assert records.lookup("m.k", "fp", "GPU", "[1]") == entry(1.0)
    assert records.lookup("m.k", "another source", "GPU", "[1]") is None


def test_a_file_changed_in_place_is_read_again(parses) -> None:
    records.store("m.k", "fp", "GPU", "[1]", entry(1.0))
    assert records.lookup("m.k", "fp", "GPU", "[1]") == entry(1.0)
    data = json.loads(records.path().read_text())
    data["kernels"]["m.k"]["devices"]["GPU"]["[1]"] = entry(30.0)
    with open(records.path(), "w") as f:  # same inode, another size
        f.write(json.dumps(data))
    assert records.lookup("m.k", "fp", "GPU", "[1]") == entry(30.0)


def test_a_store_leaves_earlier_lookups_results_alone() -> None:
    records.store("m.k", "fp", "GPU", "[1]", entry(1.0))
    found = records.lookup("m.k", "fp", "GPU", "[1]")
    records.store("m.k", "new fingerprint", "GPU", "[1]", entry(5.0))  # drops the old entries
    assert found == entry(1.0)
    assert records.lookup("m.k", "fp", "GPU", "[1]") is None
    assert records.lookup("m.k", "new fingerprint", "GPU", "[1]") == entry(5.0)


def test_a_damaged_file_is_no_record(parses) -> None:
    records.path().parent.mkdir(parents=True, exist_ok=True)
    records.path().write_text("{not json")
    assert records.lookup("m.k", "fp", "GPU", "[1]") is None
    records.store("m.k", "fp", "GPU", "[1]", entry(1.0))  # replaces it
    assert records.lookup("m.k", "fp", "GPU", "[1]") == entry(1.0)
