"""A tuning directory on disk (`aqmlab tune --out DIR`): the names of its files and reading it
back — the trials table with its description (`load_tune`) and the Optuna study
(`load_study`). `aqmlab.tuning.search` writes the directory and `aqmlab.tuning.report` reads it; both
import from here (and neither the other's way back).

Files: `DIR/tune.json` and `DIR/trials.parquet` (named in aqmlab.storage.dirs, which tells the kinds of
directory apart), `DIR/final.parquet` (the final comparison's runs) and `DIR/study.db`
(Optuna's SQLite storage, its one study named "tune").
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

from aqmlab.storage.dirs import TRIALS_TABLE, TUNE_INFO, is_tune_dir

STUDY_DB = "study.db"
STUDY_NAME = "tune"
FINAL_TABLE = "final.parquet"


def quiet_optuna():
    """The `optuna` module, its logging and the warnings aqmlab expects turned down."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    # constraints_func: deprecated in Optuna 5 for Trial.set_constraint (absent before 5), kept
    # until 7 (pyproject.toml: optuna < 7); one way for every supported version.
    warnings.filterwarnings("ignore", message=".*constraints_func.*", category=FutureWarning)
    return optuna


def load_study(dir: str | os.PathLike):
    """The Optuna study stored in `dir/study.db`."""
    storage = f"sqlite:///{(Path(dir) / STUDY_DB).resolve()}"
    return quiet_optuna().load_study(study_name=STUDY_NAME, storage=storage)


def load_tune(dir: str | os.PathLike):
    """The trials table of a tuning directory (a pandas DataFrame); `attrs["tune"]` the table as
    parsed and the comparisons, `attrs["final"]` the final runs."""
    import pandas as pd

    d = Path(dir)
    if not is_tune_dir(d):
        raise FileNotFoundError(f"{d}: not a tuning directory (no {TUNE_INFO} and {TRIALS_TABLE})")
    df = pd.read_parquet(d / TRIALS_TABLE)
    df.attrs["tune"] = json.loads((d / TUNE_INFO).read_text(encoding="utf-8"))
    if (d / FINAL_TABLE).is_file():
        df.attrs["final"] = pd.read_parquet(d / FINAL_TABLE)
    return df
