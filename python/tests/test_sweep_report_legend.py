"""Sweep report CDFs readable with few replications (issue 30, item 8): with n < 3 the 95 %
band (t quantile 12.7 at n = 2) would cover the figure, so only the means are drawn; bands are
thin otherwise; legend labels are short (`target=2ms`, not
`codel, variant[codel].queue.target=2ms (n=2)`) and stay distinct."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from aqmlab.sweeps.report import BAND_ALPHA, Group, draw_ccdf, draw_cdf, legend_labels, short_label

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def test_short_labels():
    assert short_label("codel, variant[codel].queue.target=2ms") == "target=2ms"
    assert short_label("codel, variant[codel].queue.target=2ms", keep_variant=True) == "codel, target=2ms"
    assert short_label("queue.limit=10, workload[0].rate=100") == "limit=10, rate=100"
    # An axis that does not name the variant leaves it in the label.
    assert short_label("red, workload[0].rate=100") == "red, rate=100"
    assert short_label("droptail") == "droptail"


def _groups(n: int, labels: list[str]) -> list[Group]:
    rng = np.random.default_rng(1)
    return [
        Group(lab, (lab,), [], [np.sort(rng.exponential(0.2 * (i + 1), 500)) for _ in range(n)])
        for i, lab in enumerate(labels)
    ]


CODEL = ["codel, variant[codel].queue.target=2ms", "codel, variant[codel].queue.target=5ms", "droptail"]


def test_legend_labels_are_short_distinct_and_carry_n_only_when_it_differs():
    assert legend_labels(_groups(2, CODEL)) == ["target=2ms", "target=5ms", "droptail"]
    both = ["red, variant[red].queue.limit=10", "pie, variant[pie].queue.limit=10"]
    assert legend_labels(_groups(2, both)) == ["red, limit=10", "pie, limit=10"]
    gs = _groups(2, CODEL)
    gs[2].samples = gs[2].samples[:1]
    assert legend_labels(gs) == ["target=2ms (n=2)", "target=5ms (n=2)", "droptail (n=1)"]


@pytest.mark.parametrize("draw", [lambda ax, gs: draw_cdf(ax, gs, 2.0), draw_ccdf])
def test_two_replications_draw_lines_only_and_three_thin_bands(draw):
    fig, ax = plt.subplots()
    draw(ax, _groups(2, CODEL))
    assert len(ax.lines) == 3 and len(ax.collections) == 0
    assert ax.get_title().endswith("(n = 2 each, mean only)")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["target=2ms", "target=5ms", "droptail"]
    plt.close(fig)
    fig, ax = plt.subplots()
    draw(ax, _groups(3, CODEL))
    assert len(ax.collections) == 3
    assert all(c.get_alpha() == BAND_ALPHA == 0.15 for c in ax.collections)
    assert ax.get_title().endswith("(n = 3 each, 95 % band)")
    plt.close(fig)
