"""REST API (DRF): benchmarks with their leaderboards, models, submissions and runs; token auth for
submitters; the same visibility rules as the pages."""
