"""Sweeps (`aqmlab sweep`): running the runs the core expands, their cost, workers and report."""
