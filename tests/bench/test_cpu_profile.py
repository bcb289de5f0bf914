"""How ``python -m bench.cpu_profile`` turns sampled stacks into shares (no figure is measured)."""

from __future__ import annotations

from bench import cpu_profile

SAVE = ["server/runtime/service.py:_drain", "server/runtime/service.py:_save"]


def test_a_part_counts_every_sample_whose_stack_passes_through_it_once() -> None:
    stacks = [
        ([*SAVE, "server/rooms/model.py:encode", "rules/codec.py:pack"], 3),
        ([*SAVE, "server/stores/redis_store.py:save"], 1),
        (["server/runtime/hub.py:fan_out", "server/transport/serving.py:send_frame"], 4),
    ]
    text = cpu_profile.report(stacks, cpu_ms_per_action=0.4, top=2)
    assert "8 samples; server CPU 0.400 ms per action" in text
    # Half the samples (4 of 8) pass through the save: half of 400 us.
    assert "| the save (record, entries, Lua call) | 50.0 % | 200 |" in text
    assert "|   the room record encoded | 37.5 % | 150 |" in text
    assert "| the fan-out | 50.0 % | 200 |" in text
    assert "| msgpack packing (codec.pack) | 37.5 % | 150 |" in text
    # The functions with samples of their own, most first.
    assert text.splitlines()[-2:] == [
        "   50.0 %  server/transport/serving.py:send_frame",
        "   37.5 %  rules/codec.py:pack",
    ]


def test_no_samples_is_not_a_division_by_zero() -> None:
    assert "| the fan-out | 0.0 % | 0 |" in cpu_profile.report([], cpu_ms_per_action=0.4)
