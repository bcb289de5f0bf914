"""rules.codec.pack keeps a packer per thread: it must give exactly what msgpack.packb gives."""

from __future__ import annotations

import threading
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.codec import pack, unpack

wire = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


@settings(max_examples=300, derandomize=True)
@given(wire)
def test_pack_is_msgpacks_packb_byte_for_byte(value: Any) -> None:
    assert pack(value) == msgpack.packb(value, use_bin_type=True)
    assert unpack(pack(value)) == value


def test_a_value_that_cannot_be_packed_leaves_nothing_behind_for_the_next() -> None:
    with pytest.raises(TypeError):
        pack({"a": [1, 2, object()]})
    assert pack({"b": 1}) == msgpack.packb({"b": 1}, use_bin_type=True)


def test_threads_packing_at_once_each_get_their_own_bytes() -> None:
    values = [{"seat": i, "cards": list(range(i, i + 50)), "name": f"P{i}" * i} for i in range(8)]
    expected = [msgpack.packb(v, use_bin_type=True) for v in values]
    wrong: list[int] = []
    start = threading.Barrier(len(values))

    def packing(i: int) -> None:
        start.wait(timeout=10)
        for _ in range(2000):
            if pack(values[i]) != expected[i]:
                wrong.append(i)
                return

    threads = [threading.Thread(target=packing, args=(i,)) for i in range(len(values))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    assert wrong == []
