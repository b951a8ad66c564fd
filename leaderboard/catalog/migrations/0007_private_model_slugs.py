"""Private models created before slugs carried a random tail get one now, so that registering the
same name no longer tells another user (by a ``-2`` suffix) that a hidden model exists."""
import re
import secrets

from django.db import migrations

_RANDOM_TAIL = re.compile(r"-[0-9a-f]{8}$")


def forwards(apps, schema_editor):
    Model = apps.get_model("catalog", "Model")
    for model in Model.objects.filter(is_public=False).only("pk", "slug"):
        if _RANDOM_TAIL.search(model.slug):
            continue
        base = model.slug[:120]
        while True:
            slug = f"{base}-{secrets.token_hex(4)}"
            if not Model.objects.filter(slug=slug).exists():
                break
        Model.objects.filter(pk=model.pk).update(slug=slug)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0006_dataset_media")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
