"""Scrub what Multi-LCB item results stored before a failed hidden test kept only its verdict: the reason of a
sample that failed a hidden (private) test held the program's stderr and exit code, or its times, or the line
counts of its output, all of which a program could fill with the hidden test's input and read back on the
per-item page or the API. Each such reason becomes the one the evaluator now writes (the text frozen here)."""
from __future__ import annotations

from typing import Any

from django.db import migrations

#: evaluators.multi_lcb.evaluator.HIDDEN_TEST_REASON when this migration was written
HIDDEN_TEST_REASON = ("a hidden test shows only its verdict: its input, the expected output and what the program "
                      "wrote (stdout, stderr, exit code) stay hidden")
BATCH = 500


def scrubbed(detail: dict[str, Any]) -> bool:
    """Blank the reason of every sample in ``detail`` that failed a hidden test; whether any changed."""
    changed = False
    for sample in detail.get("samples") or ():
        if (isinstance(sample, dict) and sample.get("failed_test_public") is False
                and sample.get("reason") != HIDDEN_TEST_REASON):
            sample["reason"] = HIDDEN_TEST_REASON
            sample.pop("difference", None)
            changed = True
    return changed


def scrub_hidden_reasons(apps: Any, schema_editor: Any) -> None:
    ItemResult = apps.get_model("submissions", "ItemResult")
    found = ItemResult.objects.filter(run__evaluator_key="multi-lcb").only("pk", "detail").order_by("pk")
    batch = []
    for result in found.iterator(chunk_size=BATCH):
        if isinstance(result.detail, dict) and scrubbed(result.detail):
            batch.append(result)
        if len(batch) >= BATCH:
            ItemResult.objects.bulk_update(batch, ["detail"])
            batch = []
    if batch:
        ItemResult.objects.bulk_update(batch, ["detail"])


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0012_run_cost'),
    ]

    operations = [
        migrations.RunPython(scrub_hidden_reasons, migrations.RunPython.noop),
    ]
