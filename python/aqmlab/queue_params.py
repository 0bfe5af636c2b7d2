"""Queue-discipline parameters as the Rust core declares them (`crates/aqm/src/params.rs`).

`params("red")` lists the keys of a `kind = "red"` queue table, one dict each: `key`, `value`
(how it is written), `unit`, `default` (as written in a scenario file), `range`, `doc` and
`source` (paper, RFC, ns-2 default). `kinds()` lists the queue kinds; `text("red")` is the
table `aqmlab params red` prints. Nothing is restated here: each key is declared once beside
its discipline, and these read that declaration.
"""

from __future__ import annotations

import argparse

from aqmlab import _core


def kinds() -> list[str]:
    """Every queue `kind`, in the order of docs/queue-disciplines.md."""
    return list(_core.queue_kinds())


def params(kind: str) -> list[dict[str, str]]:
    """The declared keys of queue `kind`; ValueError for an unknown kind."""
    return list(_core.queue_params(kind))


def text(kind: str) -> str:
    """The aligned table of `kind`'s keys, with its title and profiles."""
    return str(_core.queue_params_text(kind))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`aqmlab params [KIND]`."""
    p = sub.add_parser(
        "params",
        help="list a queue discipline's keys: units, defaults, ranges, sources",
        description="Without KIND, list the queue kinds; with KIND, its keys as the core declares "
        "them (the same table as docs/queue-disciplines.md).",
    )
    p.add_argument("kind", nargs="?", metavar="KIND", help="a queue kind, e.g. red")


def cmd_params(args: argparse.Namespace) -> int:
    if args.kind is None:
        print("\n".join(kinds()))
    else:
        print(text(args.kind), end="")
    return 0
