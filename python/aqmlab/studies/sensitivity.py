"""Check a sensitivity search's setting with a study's own seeds and rule (issue 34 item 6).

A sensitivity search (`aqmlab tune studies/NAME/sensitivity/*.toml`) finds a setting of a
paper's unstated parameters on short windows and few seeds. This re-runs the study's own sweep
files for the tables a verdict reads, with that setting applied, at the files' full length and
seeds, and applies the verdict's rule to them, exactly as `aqmlab reproduce` does:

    python -m aqmlab.studies.sensitivity STUDY VERDICT --tables ID[,ID…] --out DIR \\
        [--variants NAME,…] [--set KEY=VALUE …] [--jobs N]

`--set` keys are the key paths of `aqmlab reproduce`'s overrides (aqmlab.studies.reproduce: under
`sweep.grid.`, `sweep.zip.`, `sweep.derive.` the rest is one key, applied only to files that
have it); a VALUE is read as JSON (`2`, `false`, `[90, 98]`, `"round(3100 * var.load / 98)"`)
and otherwise taken as a string (`200ms`); a KEY ending in `?` (`workload[6].rate?`) is set only
in files that have that key (the 1CL file has fewer workloads than the 3CL one). `--variants`
keeps only those variants of each file
(the rows the rule reads), to spare runs. Prints the verdict's outcome and evidence.

Validation: python/tests/test_sensitivity.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from aqmlab.engine.document import dumps_toml, read_document
from aqmlab.studies.compare import Check


def parse_value(text: str):
    """A `--set` value: JSON if it parses (numbers, booleans, lists, quoted strings), else the
    text itself (`200ms`)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _present(doc: dict, overrides: dict) -> dict:
    """`overrides` without the `KEY?` entries whose key `doc` lacks (the `?` dropped)."""
    from aqmlab import _core

    out = {}
    for k, v in overrides.items():
        if k.endswith("?"):
            try:
                _core.get_key(doc, k[:-1])
            except ValueError:
                continue
            k = k[:-1]
        out[k] = v
    return out


def check_setting(
    study_name: str,
    verdict_id: str,
    tables: list[str],
    overrides: dict,
    out: Path,
    variants: list[str] | None = None,
    jobs: int | None = 1,
    studies_dir: Path | None = None,
) -> tuple[Check, dict[str, pd.DataFrame]]:
    """Run the sweep files of `tables` (ids of the study's tables) with `overrides` applied (and
    only `variants`, if given) into `out/sweeps/<file stem>/`, and evaluate verdict `verdict_id`
    on their results. Returns the rule's Check and the results dict. ValueError for an unknown
    verdict or table id, or a variant list that leaves a file with none."""
    from aqmlab.studies import load
    from aqmlab.studies.paper_tables import table_results
    from aqmlab.studies.sweep_files import REPO_ROOT, apply_overrides
    from aqmlab.sweeps.run import run_sweep

    study = load(study_name)
    verdict = next((v for v in study.verdicts if v.id == verdict_id), None)
    if verdict is None:
        ids = ", ".join(v.id for v in study.verdicts)
        raise ValueError(f"{study_name}: no verdict {verdict_id!r} ({ids})")
    by_id = {t.id: t for t in study.tables}
    unknown = [t for t in tables if t not in by_id]
    if unknown:
        raise ValueError(f"{study_name}: no table {unknown[0]!r} ({', '.join(by_id)})")
    sdir = (studies_dir or REPO_ROOT / "studies") / study.name
    frames: dict[str, pd.DataFrame] = {}
    results: dict[str, pd.DataFrame] = {}
    for tid in tables:
        table = by_id[tid]
        if table.scenario not in frames:
            src = sdir / table.scenario
            doc = read_document(src)[0]
            doc = apply_overrides(doc, _present(doc, overrides), str(src))
            if variants:
                doc["variant"] = [v for v in doc.get("variant", []) if v.get("name") in variants]
                if not doc["variant"]:
                    raise ValueError(f"{src}: none of the variants {', '.join(variants)}")
            doc.setdefault("sweep", {})["data_dir"] = str(src.parent.resolve())
            scen = out / "scenarios" / table.scenario
            scen.parent.mkdir(parents=True, exist_ok=True)
            scen.write_text(f"# {src} with a sensitivity setting applied (aqmlab.studies.sensitivity).\n"
                            + dumps_toml(doc), encoding="utf-8")  # fmt: skip
            sweep_dir = out / "sweeps" / src.stem
            df = run_sweep(scen, sweep_dir, jobs=jobs, progress=False)
            for t in study.tables:
                if t.scenario == table.scenario and t.run_metrics is not None:
                    df = t.run_metrics(df, sweep_dir)
            frames[table.scenario] = df
        results[tid] = table_results(frames[table.scenario], table)
    return verdict.check(results), results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m aqmlab.studies.sensitivity", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("study")
    ap.add_argument("verdict")
    ap.add_argument("--tables", required=True, help="table ids the rule reads, comma-separated")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--variants", help="variants to keep, comma-separated (default: all)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print(f"--set: {item!r}: want KEY=VALUE", file=sys.stderr)
            return 2
        overrides[key] = parse_value(value)
    try:
        check, _ = check_setting(
            args.study, args.verdict, args.tables.split(","), overrides, args.out,
            args.variants.split(",") if args.variants else None, args.jobs,
        )  # fmt: skip
    except ValueError as e:
        print(f"aqmlab: error: {e}", file=sys.stderr)
        return 2
    print(f"{args.verdict}: {check.outcome.value}: {check.evidence}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
