"""The API fuzzed with Schemathesis against its own OpenAPI schema, in ``make test``: every operation,
valid and invalid inputs, as a signed-in user (token) with real objects behind the paths (a benchmark
with a dataset, the user's model, a scored run) and with made-up ones. Bounded: FUZZ_EXAMPLES inputs
per operation, mode and set of path parameters. Counts are printed; the suite fails on any server error,
any answer that breaks the schema, and any status code the schema does not document."""

from __future__ import annotations

import os
from collections import Counter

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def settings_rate_limits_lifted(settings):
    """The arena's per-minute limits would answer most fuzzed writes with a (documented) 429."""
    settings.ARENA_ACTIONS_PER_MINUTE = settings.ARENA_ACTIONS_PER_MINUTE_PER_IP = 10**6
    settings.SUBMISSIONS_PER_DAY = 10**6


FUZZ_EXAMPLES = int(os.environ.get("LEADERBOARD_FUZZ_EXAMPLES", "30"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


def test_the_api_answers_every_fuzzed_request_within_its_schema(
    multi_lcb, user, sent_tasks, settings_rate_limits_lifted, capsys
):
    from django.db import transaction

    from leaderboard.arena.models import ArenaModel

    with transaction.atomic():
        run = scored_run(multi_lcb, user, "fuzzed-model", 0.5)
    # battles can start in both settings (two enabled models that can answer without search; never called:
    # sends are recorded)
    plain = {"kind": "chat", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    ArenaModel.objects.create(name="fuzz-a", organization="A", responder=plain)
    ArenaModel.objects.create(name="fuzz-b", organization="B", responder=plain)
    token = Token.objects.create(user=user).key
    real = {"slug": run.submission.model.slug, "benchmark": "multi-lcb", "id": run.pk, "pk": run.pk}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    requests: Counter[str] = Counter()
    failures: dict[str, list[str]] = {}
    unsatisfiable: list[str] = []

    for result in schema.get_all_operations():
        operation = result.ok()
        path_names = [p.name for p in operation.path_parameters]
        fixed = [None] + (
            [{n: real.get(n, real["slug"] if "slug" in n else run.pk) for n in path_names}] if path_names else []
        )
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            for path_parameters in fixed:
                strategy = (
                    operation.as_strategy(mode, path_parameters=path_parameters)
                    if path_parameters
                    else operation.as_strategy(mode)
                )

                @settings(
                    max_examples=FUZZ_EXAMPLES,
                    deadline=None,
                    database=None,
                    derandomize=True,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=strategy)
                def fuzz(case) -> None:
                    response = case.call(headers={"Authorization": f"Token {token}"})
                    requests[operation.label] += 1  # noqa: B023 (called in this iteration)
                    try:
                        case.validate_response(response, checks=CHECKS)
                    except FailureGroup as group:
                        for failure in group.exceptions:
                            failures.setdefault(f"{operation.label}: {failure.title}", []).append(  # noqa: B023 (called in this iteration)
                                f"{case.method} {case.formatted_path} -> {response.status_code}: "
                                f"{failure.message[:300]} query {case.query}"
                            )

                try:
                    fuzz()
                except Unsatisfiable:  # nothing to make invalid (an operation without inputs)
                    unsatisfiable.append(f"{operation.label} {mode.value}")
    with capsys.disabled():  # the counts appear in make test's output, passing or not
        print(
            f"\nSchemathesis: {len(requests)} operations, {sum(requests.values())} requests, "
            f"{sum(len(v) for v in failures.values())} failures ({len(unsatisfiable)} operation-modes had nothing to "
            f"make invalid)"
        )
        for title, seen in sorted(failures.items()):
            print(f"  {title} ({len(seen)}): {seen[0]}")
    assert len(requests) >= 20
    assert not failures, "\n".join(f"{t} ({len(s)}): {s[0]}" for t, s in sorted(failures.items()))
