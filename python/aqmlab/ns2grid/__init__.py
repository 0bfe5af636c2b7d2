"""ns-2.35 beside aqmlab on a study's grid (issue 34): `aqmlab reproduce STUDY --ns2 [--quick]`.

The same sweep points `aqmlab reproduce` runs (aqmlab.ns2grid.grid) become runs of the seed 001
ns-2 script validation/ns2/twin/seed001.tcl (aqmlab.ns2grid.command; a point with a setting
ns-2.35 cannot express is refused with the reason), run two at a time and resumably
(aqmlab.ns2grid.runner), and are parsed into aqmlab's metrics (aqmlab.ns2grid.parse), so the
study's verdict checks run on ns-2.35's results unchanged.

Public: `ns2_results(study, quick, out_dir) -> dict[table id, DataFrame]` (the results dict of
aqmlab.studies.reproduce), `run_grid` (the same with the points and their status), `default_out`.
Validation: python/tests/test_ns2grid.py.
"""

from aqmlab.ns2grid.grid import default_out, ns2_results, run_grid

__all__ = ["default_out", "ns2_results", "run_grid"]
