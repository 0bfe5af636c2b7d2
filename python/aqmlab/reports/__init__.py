"""Reports of runs: response-time CDFs, summary tables, intervals, page times and the
pieces of report pages."""
