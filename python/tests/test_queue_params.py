"""`aqmlab.params(kind)` and `aqmlab params KIND` read the core's declarations."""

from __future__ import annotations

import pytest

import aqmlab
from aqmlab import queue_params
from aqmlab.cli import main


def test_params_lists_keys_units_defaults_ranges_sources():
    red = {p["key"]: p for p in aqmlab.params("red")}
    assert red["min_th"] == {
        "key": "min_th", "value": "number", "unit": "packets", "default": "5", "range": "≥ 0",
        "doc": "Minimum threshold on the average queue",
        "source": "FJ93 recommendation; ns-2 thresh_ before 2001",
    }  # fmt: skip
    assert red["mean_pktsize"]["default"] == '"1500B"'
    assert red["w_q"]["range"] == "(0, 1]"
    assert {p["key"] for p in aqmlab.params("pisa")} >= {"q_ref", "alpha", "hintless"}
    assert queue_params.kinds()[:3] == ["droptail", "red", "ared"]


def test_unknown_kind():
    with pytest.raises(ValueError, match="unknown queue kind"):
        aqmlab.params("nosuch")


def test_cli(capsys):
    assert main(["params", "codel"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("codel — CoDel, RFC 8289")
    assert "target" in out and '"5ms"' in out and "RFC 8289 §4.4" in out
    assert main(["params"]) == 0
    assert "fq_codel" in capsys.readouterr().out.split()
    assert main(["params", "nosuch"]) == 2
