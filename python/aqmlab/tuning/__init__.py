"""Tuning (`aqmlab tune`, `aqmlab tune-study`): the search, its store and its report."""
