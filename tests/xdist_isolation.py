"""Each pytest-xdist worker of `make test` gets its own Redis database, var folder and S3 bucket.

Loaded with ``-p tests.xdist_isolation`` before pytest-django reads the settings (which read these from
the environment at import). pytest-django already gives each worker its own test database
(``test_<name>_gw0``, ...); this gives the rest, so tests in two workers never share a Celery queue, a
cache, kept files or stored objects. Worker ``gwN`` takes Redis database ``base - N`` (the base is the
database of ``CELERY_BROKER_URL``, 14 for `make test`), ``$LEADERBOARD_VAR_DIR/gwN`` and the bucket
``$S3_BUCKET-gwN``. Without xdist (one process) nothing changes.
"""

from __future__ import annotations

import os


def worker_settings(worker: str, environ: dict[str, str]) -> dict[str, str]:
    """The environment variables worker ``worker`` (``gw0``, ``gw1``, ...) overrides, from ``environ``."""
    index = int(worker.removeprefix("gw"))
    changed: dict[str, str] = {}
    broker = environ.get("CELERY_BROKER_URL", "")
    if broker.startswith("redis://"):
        base, _, number = broker.rpartition("/")
        database = int(number or 0) - index
        if database < 0:
            raise RuntimeError(
                f"CELERY_BROKER_URL {broker}: no Redis database left for xdist worker {worker} "
                "(worker gwN takes database base - N); use a higher base database or fewer workers"
            )
        changed["CELERY_BROKER_URL"] = f"{base}/{database}"
    if environ.get("LEADERBOARD_VAR_DIR"):
        changed["LEADERBOARD_VAR_DIR"] = os.path.join(environ["LEADERBOARD_VAR_DIR"], worker)
    if environ.get("S3_BUCKET"):
        changed["S3_BUCKET"] = f"{environ['S3_BUCKET']}-{worker}"
    return changed


def _isolate() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # set by xdist before the worker builds its config
    if not worker:
        return
    changed = worker_settings(worker, dict(os.environ))
    os.environ.update(changed)
    if "S3_BUCKET" in changed:
        import boto3

        boto3.client(
            "s3",
            endpoint_url=os.environ.get("S3_ENDPOINT_URL"),
            aws_access_key_id=os.environ.get("S3_ACCESS_KEY_ID"),
            aws_secret_access_key=os.environ.get("S3_SECRET_ACCESS_KEY"),
            region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        ).create_bucket(Bucket=changed["S3_BUCKET"])


_isolate()
