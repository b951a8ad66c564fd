"""The leaderboard Django project: settings, URLs and the apps (catalog, submissions, accounts, web, api)."""
