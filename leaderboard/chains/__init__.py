"""Write chains that cross apps, each with one home above the apps it touches (the order:
``leaderboard.layers``): a run's scoring and completion -> its board row -> the board's changelog
(``execution``, ``board_rows``; a model's or submission's visibility change files its rows again, with the
changelogs and the snapshots' withholdings), and a pre-flight that passes -> the embedded demo's
submission (``demo``). The app (``apps``) has no models."""
