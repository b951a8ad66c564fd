"""The order of the site's code, lowest first (checked by tests/architecture/test_app_order.py): a module
imports only from its own layer and the layers below it, never up.

- ``plumbing``: request types, the page cache (and its admin base), broker sends and the Celery app, settings,
  setup status, the API's shared paging, parsing, fields and refusals; no app.
- the apps, each over the ones before it: ``accounts`` -> ``catalog`` (benchmarks, datasets, models) ->
  ``modelhost`` (registration, pre-flight, uploads, judges) -> ``arena`` (battles and ratings) -> ``runs``
  (submissions, generation, runs, queue, costs, ETA) -> ``boards`` (the leaderboards' reads and pages)
  -> ``history`` (snapshots, changelog, takedowns).
- ``chains``: each write that crosses apps, with one home above the apps it touches.
- ``site``: what nothing imports but Django, Celery and the command line: URL maps, the site's own pages
  (``web``), management commands, the workers' tasks.

A module belongs to the layer of the longest prefix below that names it. The imports that still go up are
in :data:`UPWARD`, each with its reason.
"""

from __future__ import annotations

#: (layer, module prefixes), lowest first
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "plumbing",
        (
            "leaderboard.api.fields",
            "leaderboard.api.paging",
            "leaderboard.api.refusals",
            "leaderboard.api.schema",
            "leaderboard.http",
            "leaderboard.keyring",
            "leaderboard.layers",
            "leaderboard.middleware",
            "leaderboard.pagecache",
            "leaderboard.pagecache_admin",
            "leaderboard.task_sends",
            "leaderboard.settings",
            "leaderboard.setup_status",
            "leaderboard.spreadsheet",
            "workers.celery",
            "workers.routing",
        ),
    ),
    ("accounts", ("leaderboard.accounts",)),
    ("catalog", ("leaderboard.catalog",)),
    ("modelhost", ("leaderboard.modelhost",)),
    ("arena", ("leaderboard.arena",)),
    ("runs", ("leaderboard.runs",)),
    ("boards", ("leaderboard.boards",)),
    ("history", ("leaderboard.history",)),
    ("chains", ("leaderboard.chains",)),
    (
        "site",
        (
            "leaderboard.api",
            "leaderboard.api.urls",
            "leaderboard.ops",
            "leaderboard.urls",
            "leaderboard.web",
            "leaderboard.wsgi",
            "workers",
        ),
    ),
)

#: module parts that put a module in the ``site`` layer wherever it lives: an app's URL map and its
#: management commands are entry points (Django and the command line import them, no module does)
SITE_PARTS = ("urls", "management")

#: the imports that still go up the order: (importer, imported module) -> why
UPWARD: dict[tuple[str, str], str] = {
    (
        "leaderboard.catalog.services",
        "leaderboard.arena.catalog_link",
    ): "a new catalog model may not take an arena contestant's name; the arena's models link to catalog "
    "models, so the arena sits above the catalog, and the rule is asked through the catalog "
    "(catalog.services.new_model_name_problem)",
}
