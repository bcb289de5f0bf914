"""How ``python -m bench.load compare`` turns its runs into ratios (no figure is measured)."""

from __future__ import annotations

from bench import load


def _runs(baseline: list[float], parlor: list[float]) -> dict[load.Server, list[dict[str, float]]]:
    return {
        "baseline": [{"cpu": x} for x in baseline],
        "parlor": [{"cpu": x} for x in parlor],
    }


def test_compare_ratio_is_the_median_of_each_rounds_own_ratio() -> None:
    # The machine was slow in rounds 2 and 3 for both servers: each round's ratio is 1.2
    # or 0.8, and the ratio is their median, where the two servers' medians apart (0.6 and
    # 0.48) would give 0.8.
    runs = _runs([0.4, 0.6, 0.6], [0.48, 0.72, 0.48])
    assert load.paired_ratios(runs, ["cpu"]) == {"cpu": 1.2}


def test_compare_ratio_leaves_out_a_round_whose_baseline_figure_is_zero() -> None:
    assert load.paired_ratios(_runs([0.0, 0.5], [0.3, 0.6]), ["cpu"]) == {"cpu": 1.2}
    assert load.paired_ratios(_runs([0.0], [0.3]), ["cpu"]) == {"cpu": None}
