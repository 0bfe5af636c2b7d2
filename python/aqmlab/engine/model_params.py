"""Model parameters as the Rust core declares them (the `declare` crate: `crates/tcp/src/params.rs`
for `[tcp]`, each queue discipline's `MODEL` in `crates/aqm/src/<kind>.rs`).

`params("red")` lists the keys of a `kind = "red"` queue table (`params("tcp")` those of `[tcp]`,
`params("mah")` those of a declared workload kind, crates/traffic/src/workload/params.rs),
one dict each: `key`, `value` (how it is written), `unit`, `default` (as written in a scenario
file), `range`, `doc`, `source` (paper, RFC, ns-2 default) and `search` (the default search range
a tuner offers, as a tuning table writes it; "" for switches and choices). `models()` lists
the names (`tcp`, the topology tables, the queue kinds, every workload kind), `titles()` their
one-line descriptions, `kinds()` the queue kinds; `text("red")` is the table `aqmlab params
red` prints. The workload kinds whose tables hold distributions, flow arrays or files (`http10`,
`bulk`, `replay`) are described by the scenario crate (`crates/scenario/src/workload_keys.rs`):
their `text()` lists their keys, `params()` is empty. Nothing is restated here: each key is
declared once beside its model, and these read that declaration.
"""

from __future__ import annotations

import argparse

from aqmlab import _core


def models() -> list[str]:
    """Every declared model: `tcp`, the queue kinds (docs/queue-disciplines.md), the workloads."""
    return list(_core.param_models())


def kinds() -> list[str]:
    """Every queue `kind`, in the order of docs/queue-disciplines.md."""
    return list(_core.queue_kinds())


def params(name: str) -> list[dict[str, str]]:
    """The declared keys of model `name` (`tcp` or a queue kind); ValueError for an unknown one."""
    return list(_core.model_params(name))


def text(name: str) -> str:
    """The aligned table of `name`'s keys, with its title and profiles."""
    return str(_core.model_params_text(name))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`aqmlab params [NAME]`."""
    p = sub.add_parser(
        "params",
        help="list the models with a one-line description each, or a model's keys: units, defaults, ranges",
        description="Without NAME, list the models (tcp, the queue kinds, the declared workload "
        "kinds); with NAME, its keys as the core declares them (the same tables as "
        "docs/queue-disciplines.md, docs/tcp.md, docs/workloads.md and docs/topologies.md).",
    )
    p.add_argument("kind", nargs="?", metavar="NAME", help="tcp, a queue kind such as red, or mah")


def titles() -> dict[str, str]:
    """Each model's one-line description: the title its table starts with (`NAME — title`)."""
    return {m: text(m).split("\n", 1)[0].split(" — ", 1)[-1] for m in models()}


def cmd_params(args: argparse.Namespace) -> int:
    if args.kind is None:
        t = titles()
        width = max(map(len, t))
        print("\n".join(f"{m:<{width}}  {title}" for m, title in t.items()))
        print("\naqmlab params NAME: its keys, units, defaults, ranges and sources")
    else:
        print(text(args.kind), end="")
    return 0
