"""Generated outputs per stage of a multi-turn item (messages and tool kept with it), and an error kind
beside the error text; the kinds of stored rows are read from their error text."""

from django.db import migrations, models


def fill_error_kinds(apps, schema_editor):
    GeneratedOutput = apps.get_model("submissions", "GeneratedOutput")
    rows = GeneratedOutput.objects.exclude(error="")
    rows.filter(error="empty answer").update(error_kind="empty")
    rows.filter(error__startswith="cut off").update(error_kind="cut_off")
    rows.filter(error__startswith="timeout").update(error_kind="timeout")
    rows.filter(error__startswith="output").update(error_kind="invalid")
    for status in ("400", "413", "422"):
        rows.filter(error__startswith="endpoint", error__contains=f"HTTP {status}").update(error_kind="refused")
    rows.filter(error_kind="").update(error_kind="failed")


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0007_chunk_lease_columns'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='generatedoutput',
            options={'ordering': ['run', 'item_id', 'sample_index', 'stage']},
        ),
        migrations.RemoveConstraint(
            model_name='generatedoutput',
            name='one_output_per_sample',
        ),
        migrations.AddField(
            model_name='generatedoutput',
            name='error_kind',
            field=models.CharField(blank=True, max_length=20),
        ),
        migrations.AddField(
            model_name='generatedoutput',
            name='messages',
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name='generatedoutput',
            name='stage',
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='generatedoutput',
            name='tool',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddConstraint(
            model_name='generatedoutput',
            constraint=models.UniqueConstraint(fields=('run', 'item_id', 'sample_index', 'stage'), name='one_output_per_stage'),
        ),
        migrations.RunPython(fill_error_kinds, migrations.RunPython.noop),
    ]
