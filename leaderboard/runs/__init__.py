"""Runs: predictions files and models submitted to benchmarks, the generation of a registered model's
answers (``generation``), their evaluation runs (life cycle, queue, leases, costs, ETA, execution,
notifications), per-item results and scores, and the daily submission quota. The read side of the
boards (selectors, charts, leaders, profiles, compare) is ``leaderboard.boards``. The Django app label is
still ``submissions`` (tables and migrations unchanged)."""
