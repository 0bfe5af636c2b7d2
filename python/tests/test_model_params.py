"""`aqmlab.params(name)` and `aqmlab params NAME` read the core's declarations ([tcp], queues)."""

from __future__ import annotations

import pytest

import aqmlab
from aqmlab.cli import main
from aqmlab.engine import model_params


def test_params_lists_keys_units_defaults_ranges_sources():
    red = {p["key"]: p for p in aqmlab.params("red")}
    assert red["min_th"] == {
        "key": "min_th", "value": "number", "unit": "packets", "default": "5", "range": "≥ 0",
        "doc": "Minimum threshold on the average queue",
        "source": "FJ93 recommendation; ns-2 thresh_ before 2001",
        "search": "{ float = [0.5, 50], log = true }",
    }  # fmt: skip
    assert red["mean_pktsize"]["default"] == '"1500B"'
    assert red["w_q"]["range"] == "(0, 1]"
    assert {p["key"] for p in aqmlab.params("pisa")} >= {"q_ref", "alpha", "hintless"}
    assert red["max_p"]["search"] == "{ float = [0.01, 1], log = true }"  # 0.1 ÷/× 10 within (0, 1]
    assert red["gentle"]["search"] == ""  # switches are not searched by default
    assert model_params.kinds()[:3] == ["droptail", "red", "ared"]
    assert model_params.models()[0] == "tcp"
    assert model_params.models()[-8:] == [
        "mah",
        "packmime",
        "pareto_web",
        "cbr",
        "onoff",
        "http10",
        "bulk",
        "replay",
    ]
    mah = {p["key"]: p for p in aqmlab.params("mah")}
    assert (mah["users"]["default"], mah["think_cap"]["default"]) == ("required", '"600s"')


def test_tcp_params_and_profiles():
    tcp = {p["key"]: p for p in aqmlab.params("tcp")}
    assert tcp["initial_window"]["default"] == "2"
    assert tcp["initial_window"]["unit"] == "segments"
    assert tcp["delayed_ack"]["default"] == "false"
    assert tcp["delayed_ack"]["range"] == "(0, 500ms]"
    assert tcp["min_rto"]["search"] == '{ duration = ["100ms", "10s"], log = true }'
    assert "slowdown()" in tcp["ssthresh"]["source"]
    out = model_params.text("tcp")
    for name in ("ns2", "freebsd", "linux"):
        assert f'profile = "{name}"' in out


def test_unknown_kind():
    listed = "tcp, dumbbell, parking_lot, cloud, droptail"
    with pytest.raises(ValueError, match=f"unknown model .nosuch.; expected one of: {listed}"):
        aqmlab.params("nosuch")


def test_cli(capsys):
    assert main(["params", "codel"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("codel — CoDel, RFC 8289")
    assert "target" in out and '"5ms"' in out and "RFC 8289 §4.4" in out
    assert main(["params"]) == 0
    listed = capsys.readouterr().out.split()
    assert "fq_codel" in listed and listed[0] == "tcp"
    assert main(["params", "nosuch"]) == 2
