"""Chunks name their lease columns like runs and generation jobs (``LeasedWork``)."""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("submissions", "0006_leased_work"),
    ]

    operations = [
        migrations.RenameField(model_name="runchunk", old_name="token", new_name="lease_token"),
        migrations.RenameField(model_name="runchunk", old_name="claimed_until", new_name="lease_expires_at"),
    ]
