"""Write chains that cross apps, each with one home above the apps it touches (the app order:
``leaderboard.layers``): a pre-flight that passes submits the embedded demo (``demo``)."""
