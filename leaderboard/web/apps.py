"""The site's pages. The page cache they are served from is told of each change by the services and the
admin that make it (``leaderboard.pagecache``), not by signals."""

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "leaderboard.web"
    label = "web"
