"""Celery workers: the app, queues named by resource, and thin tasks over leaderboard services."""
