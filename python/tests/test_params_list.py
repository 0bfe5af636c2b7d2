"""`aqmlab params` (issue 30, item 8): without a name, every model with a one-line
description, including every workload kind the README documents (`http10`, `bulk` and
`replay` were missing, and `aqmlab params http10` said "unknown model"); with one of those
names, its keys as the scenario parser accepts them (crates/scenario/src/workload_keys.rs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aqmlab import cli
from aqmlab.engine.model_params import models, params, titles

ROOT = Path(__file__).resolve().parents[2]


def _readme_workload_kinds() -> list[str]:
    """The kinds of the documented workload table (`| \\`kind\\` | keys |` rows after its header:
    README.md, or docs/workloads.md where the README's reference sections moved)."""
    text = next(
        t for t in ((ROOT / f).read_text(encoding="utf-8") for f in ("README.md", "docs/workloads.md"))
        if "| kind | keys |" in t
    )  # fmt: skip
    table = text[text.index("| kind | keys |") :].split("\n\n", 1)[0]
    return re.findall(r"^\| `([a-z0-9_]+)` \|", table, flags=re.M)


def test_params_lists_every_model_with_a_description(capsys):
    kinds = _readme_workload_kinds()
    assert {"http10", "bulk", "replay", "mah", "packmime", "pareto_web", "cbr", "onoff"} <= set(kinds)
    assert cli.main(["params"]) == 0
    out = capsys.readouterr().out
    rows = [ln for ln in out.splitlines() if ln and not ln.startswith("aqmlab params")]
    listed = [ln.split()[0] for ln in rows]
    assert listed == models()
    assert set(kinds) <= set(listed)
    for ln in rows:  # NAME, two spaces at least, a description of a few words
        name, desc = re.fullmatch(r"(\S+) {2,}(.+)", ln).groups()
        assert len(desc.split()) >= 3 and desc == titles()[name], ln
    assert re.search(r"^http10 +HTTP/1\.0 requests, one connection each", out, flags=re.M)
    assert re.search(r"^bulk +Bulk TCP transfers", out, flags=re.M)
    assert re.search(r"^replay +HTTP connections replayed from a CSV trace", out, flags=re.M)
    assert re.search(r"^red +RED, Floyd & Jacobson 1993", out, flags=re.M)


def _keys(table: str) -> list[str]:
    lines = table.splitlines()
    body = lines[lines.index(next(ln for ln in lines if ln.startswith("key "))) + 1 :]
    return [ln.split()[0] for ln in body[: body.index("")]]


def test_params_of_the_parsed_kinds_lists_the_keys_the_parser_accepts(capsys):
    assert cli.main(["params", "http10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("http10 — ")
    assert _keys(out) == [
        "arrival",
        "rate",
        "users",
        "think",
        "request_size",
        "response_size",
        "clients",
        "servers",
    ]
    assert cli.main(["params", "bulk"]) == 0
    out = capsys.readouterr().out
    assert _keys(out) == ["flows", "flows[].start", "flows[].client", "flows[].server", "flows[].bytes"]
    assert cli.main(["params", "replay"]) == 0
    assert _keys(capsys.readouterr().out) == ["file", "clients", "servers"]
    assert params("http10") == []  # no declared (tunable) parameters


def test_a_key_the_listing_does_not_give_is_refused_by_the_parser(tmp_path):
    # The listing and the parser share one declaration: an unknown key names exactly its keys.
    from aqmlab import ScenarioError, variants

    f = tmp_path / "s.toml"
    f.write_text(
        '[run]\nwarmup = "0s"\nduration = "1s"\n[topology]\nkind = "dumbbell"\nclients = 1\nservers = 1\n'
        'access_rate = "10Mbps"\naccess_delay = "1ms"\nbottleneck_rate = "1Mbps"\n'
        'bottleneck_delay = "1ms"\n[queue]\nkind = "droptail"\nlimit = 10\n'
        '[[workload]]\nkind = "replay"\nfile = "t.csv"\nrate = 3\n',
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as e:
        variants(f)
    assert (
        str(e.value) == f"{f}: workload[0].rate: unknown key; expected one of: kind, file, clients, servers"
    )
