"""Run directories on disk: the run record, its three tables, and what `aqmlab report` is given."""
