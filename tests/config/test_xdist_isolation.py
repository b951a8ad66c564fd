"""`make test` runs its tests in two pytest-xdist workers; each must get its own broker, folder and bucket."""

import pytest

from tests.xdist_isolation import worker_settings

ENV = {
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/14",
    "LEADERBOARD_VAR_DIR": "/tmp/var/test",
    "S3_BUCKET": "leaderboard-test",
}


def test_each_worker_gets_its_own_redis_database_folder_and_bucket():
    assert worker_settings("gw0", ENV) == {
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/14",
        "LEADERBOARD_VAR_DIR": "/tmp/var/test/gw0",
        "S3_BUCKET": "leaderboard-test-gw0",
    }
    assert worker_settings("gw1", ENV) == {
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13",
        "LEADERBOARD_VAR_DIR": "/tmp/var/test/gw1",
        "S3_BUCKET": "leaderboard-test-gw1",
    }


def test_a_base_database_too_low_for_the_workers_says_what_to_do():
    with pytest.raises(RuntimeError, match="no Redis database left for xdist worker gw2"):
        worker_settings("gw2", {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/1"})


def test_other_brokers_and_unset_values_are_left_alone():
    assert worker_settings("gw1", {"CELERY_BROKER_URL": "filesystem://"}) == {}
