"""Write the seed-002 parking-lot presets and the Table I sweep files from one description.

Run from the repository root: `python studies/weigle-multi/make_scenarios.py`. It rewrites
scenarios/weigle_multi/parking_lot_{1,2,3}congested.toml, studies/weigle-multi/table1_{1,2,3}cl.toml
and studies/weigle-multi/calibration.toml, so the files stay consistent (edit this script, not
the generated files). Sources: seed 002 §III-A (topology, access links), §III-B (PackMime
HTTP/1.1), §III-C (calibration, buffers, AQM targets, TCP); the rates come from
`calibration.toml` (see README.md).
"""

from __future__ import annotations

import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: PackMime new connections/s for 3.5 Mbps of response wire bytes per workload (35 % of
#: 10 Mbps, seed 002 §III-C), measured by calibration.toml (README.md, "Calibration").
E2E_RATE = 50.0
CROSS_RATE = 50.0
#: DelayBoxes (§III-B): every router is a DelayBox that delays the flows whose host hangs off
#: it, with PackMime's RTT model (MODEL.md §3.8: client table at the client's router, server
#: table at the server's router, so each connection adds RTT_client + RTT_server). HTTP
#: workloads use their own rate for the model's dependence driver; the long-lived flows (whose
#: RTT source the paper does not name) draw from the same model at the end-to-end rate.
HTTP_BOX = 'delaybox = { client = "packmime", server = "packmime" }'
BULK_BOX = (
    f'delaybox = {{ client = {{ dist = "packmime", rate = {E2E_RATE} }}, '
    f'server = {{ dist = "packmime", rate = {E2E_RATE} }} }}'
)
#: Congested links of seed 002 §III-C, in paper order.
CONGESTED = ("r1_r2", "r3_r4", "r5_r6")
#: The paper's AQMs with seed 002 §III-C settings: target queue 20 packets (ARED: 10 ms at
#: 615 B mean packets on 10 Mbps), byte mode, ECN, buffer 200 packets; 615 B mean packet size.
#: "Byte-mode measures the queue lengths in terms of bytes [...] and the marking probability is
#: adjusted by the ratio of the current packet size to the average packet size" (§III-C): for
#: ARED both ns-2 switches, `byte_mode` (bytes_) and `queue_in_bytes`. ARED otherwise follows
#: ns-2's rules (profile = "ns2", "default ns parameter settings") as §III-C/§IV describe them:
#: ECT packets dropped, not marked, above max_th (ecn_rule = "gentle_drop") and every arrival
#: dropped above 2·max_th (forced_drop_on_avg = true; ns-2.35's use_mark_p_ would let small
#: packets through there).
AQMS = {
    "ARED": '{ kind = "ared", target_delay = "10ms", limit = 200, mean_pktsize = "615B", '
    'byte_mode = true, queue_in_bytes = true, profile = "ns2", forced_drop_on_avg = true, '
    'ecn = true, ecn_rule = "gentle_drop" }',
    "PI": '{ kind = "pi", q_ref = 20, limit = 200, mean_pktsize = "615B", byte_mode = true, ecn = true }',
    "REM": '{ kind = "rem", b_star = 20, limit = 200, mean_pktsize = "615B", byte_mode = true, ecn = true }',
}


def _reverse(link: str) -> str:
    a, b = link.split("_")
    return f"{b}_{a}"


def base(n_cl: int, link_rate: str = "10Mbps", bulk: bool = True, title: str = "") -> str:
    """The scenario text for `n_cl` congested links (without variants)."""
    out = [title.rstrip(), ""]
    out += [
        "[run]",
        "seed = 1",
        'warmup = "60s"       # §III-C: nothing counted, no long-lived flow started before 60 s',
        'duration = "820s"    # §III-C: at least 820 s',
        "",
        "[topology]",
        'kind = "parking_lot"',
        "routers = 9          # paper R0 … R7 = r0 … r7; r8 = measurement router (README.md)",
        f'link_rate = "{link_rate}"',
        'link_delay = "1ms"',
        'bottleneck = "r1_r2"',
        "",
    ]
    clouds = [
        ("http_left", 0, "4Mbps"),
        ("http_right", 7, "4Mbps"),
        ("bulk_left", 0, "1Mbps"),
        ("bulk_right", 8, "1Mbps"),
    ]
    for k in range(n_cl):
        i = 2 * k + 1
        clouds += [(f"cross{i}_in", i, "4Mbps"), (f"cross{i}_out", i + 1, "4Mbps")]
    for name, router, rate in clouds:
        out += [
            f"[topology.clouds.{name}]",
            f"router = {router}",
            "hosts = 2",
            f'access_rate = "{rate}"',
            'access_delay = "1ms"',
            "",
        ]
    out += [
        "# Every router link: drop-tail, 200 packets (§III-C); variants set the congested links.",
        "[queue]",
        'kind = "droptail"',
        "limit = 200",
        "",
        "[tcp]",
        'variant = "newreno"',
        "ecn = true",
        'receive_window = "43800B"   # 30 segments of 1460 B (§III-C)',
        "# ns-2.35 Full-TCP, as the paper ran it (PackMime's agents): its packet sequence, loss",
        "# response and segment-counted slow start; with these the seed-002 twin's packets match",
        '# ns-2\'s (validation/ns2/README.md, "Seed 002 twin").',
        "ns2_fulltcp = true",
        'ssthresh = "ns2"',
        'backoff_reset = "ack"',
        'slow_start = "ns2"',
        "",
        "# workload[0]: end-to-end forward HTTP (servers left, clients right): the measured class.",
        "# workload[1]: end-to-end reverse HTTP.",
    ]
    for srv, cli in (("http_left", "http_right"), ("http_right", "http_left")):
        out += [
            "[[workload]]",
            'kind = "packmime"',
            'http = "1.1"',
            f"rate = {E2E_RATE}",
            f'server_cloud = "{srv}"',
            f'client_cloud = "{cli}"',
            HTTP_BOX,
            "",
        ]
    if bulk:
        out.append("# workload[2], [3]: 10 long-lived flows each way (forward, reverse); 10 GB = never ends.")
        for srv, cli in (("bulk_left", "bulk_right"), ("bulk_right", "bulk_left")):
            flows = ",\n".join(
                f'  {{ start = "60s", client = {j % 2}, server = {j % 2}, bytes = "10GB" }}'
                for j in range(10)
            )
            out += [
                "[[workload]]",
                'kind = "bulk"',
                f'server_cloud = "{srv}"',
                f'client_cloud = "{cli}"',
                BULK_BOX,
                f"flows = [\n{flows}\n]",
                "",
            ]
    for k in range(n_cl):
        i = 2 * k + 1
        out.append(f"# Cross traffic on r{i}_r{i + 1} (forward) and r{i + 1}_r{i} (reverse).")
        for srv, cli in ((f"cross{i}_in", f"cross{i}_out"), (f"cross{i}_out", f"cross{i}_in")):
            out += [
                "[[workload]]",
                'kind = "packmime"',
                'http = "1.1"',
                f"rate = {CROSS_RATE}",
                f'server_cloud = "{srv}"',
                f'client_cloud = "{cli}"',
                HTTP_BOX,
                "",
            ]
    return "\n".join(out)


def variant(name: str, queues: dict[str, str]) -> str:
    """A [[variant]] giving `queues` (link → inline queue table) on both directions."""
    out = ["[[variant]]", f'name = "{name}"']
    if queues:
        out.append("[variant.topology.link_queue]")
        for link, q in queues.items():
            out.append(f"{link} = {q}")
            out.append(f"{_reverse(link)} = {q}")
    return "\n".join(out) + "\n"


def mixes(n_cl: int) -> list[tuple[str, dict[str, str]]]:
    """Every Table I row of `n_cl` congested links: all-DT, then for each AQM every DT/AQM mix
    with at least one AQM router. Name = the queues at R1-R2, R3-R4, R5-R6 joined by '-'."""
    rows = [("-".join(["DT"] * n_cl), {})]
    for aqm, q in AQMS.items():
        for choice in itertools.product(("DT", aqm), repeat=n_cl):
            if aqm not in choice:
                continue
            queues = {link: q for link, c in zip(CONGESTED, choice, strict=False) if c != "DT"}
            rows.append(("-".join(choice), queues))
    return rows


HEADER = """# Seed 002 (Weigle, Vembar, Du), 8Q parking lot with {n} congested link(s) ({n}CL, §III-C).
# GENERATED by studies/weigle-multi/make_scenarios.py: edit that script, not this file.
#
# Routers r0 … r7 = the paper's R0 … R7, 10 Mbps / 1 ms links; r8 is an extra router (1 ms
# link) holding only the long-lived sinks (forward) and sources (reverse), so the link r7_r8
# carries only long-lived traffic and the links table gives their goodput (README of
# studies/weigle-multi). HTTP clouds 2 hosts × 4 Mbps / 1 ms, long-lived 2 hosts × 1 Mbps / 1 ms
# (§III-A). Cross traffic enters at R1 (→ R2){more}. Buffers 200 packets; NewReno + ECN,
# window 30 segments (§III-C). PackMime HTTP/1.1 rates calibrated to 3.5 Mbps of responses per
# workload (studies/weigle-multi/README.md). Every router is a DelayBox (§III-B): each
# connection adds PackMime's client RTT at its client's router and server RTT at its server's
# router (base RTT 19 ms … seconds, median ≈ 86 ms end to end; paper 19 ms, median 83 ms).
"""


def main() -> None:
    sc = ROOT / "scenarios" / "weigle_multi"
    st = ROOT / "studies" / "weigle-multi"
    sc.mkdir(parents=True, exist_ok=True)
    for n in (1, 2, 3):
        more = ["", ", R3 (→ R4)", ", R3 (→ R4), R5 (→ R6)"][n - 1]
        head = HEADER.format(n=n, more=more)
        words = {1: "1congested", 2: "2congested", 3: "3congested"}[n]
        # Preset: all-DT and all-AQM variants.
        text = base(n, title=head)
        for name, queues in mixes(n):
            if len(set(name.split("-"))) == 1:
                short = "dt" if name.startswith("DT") else name.split("-")[0].lower()
                text += "\n" + variant(short, queues)
        (sc / f"parking_lot_{words}.toml").write_text(text, encoding="utf-8")
        # Study sweep: every Table I row.
        rows = "# Table I rows: every DT/AQM mix (variant name = queues at R1-R2, R3-R4, R5-R6).\n"
        text = base(n, title=head + rows)
        text += "\n[sweep]\nreplications = 3\n"
        for name, queues in mixes(n):
            text += "\n" + variant(name, queues)
        (st / f"table1_{n}cl.toml").write_text(text, encoding="utf-8")
    cal = base(
        3,
        link_rate="100Mbps",
        bulk=False,
        title="# Calibration of seed 002 §III-C: 3CL network with 100 Mbps router links, no long-lived\n"
        "# flows, every PackMime workload at 50 conn/s. GENERATED by make_scenarios.py.\n",
    )
    (st / "calibration.toml").write_text(cal, encoding="utf-8")


if __name__ == "__main__":
    main()
