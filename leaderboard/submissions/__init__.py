"""Submissions: predictions files and models submitted to benchmarks, their evaluation runs,
per-item results and scores, and the daily submission quota."""
