"""Boards: the read side of the leaderboards. A benchmark's board (``selectors``: rows, columns, ranks,
date windows; ``charts``), the models index and its leaders (``leaders``), a model's profile
(``profiles``) and two models side by side (``compare``), with their pages, API and URLs. The rows it
reads (``LeaderboardEntry``) are written by ``leaderboard.runs`` when a run finishes."""
