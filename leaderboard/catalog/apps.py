from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "leaderboard.catalog"
    label = "catalog"
    verbose_name = "Catalog"
