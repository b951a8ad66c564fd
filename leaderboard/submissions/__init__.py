"""Submissions: predictions files and models submitted to benchmarks, the generation of a registered
model's answers (``generation``), their evaluation runs, per-item results and scores, and the daily
submission quota."""
