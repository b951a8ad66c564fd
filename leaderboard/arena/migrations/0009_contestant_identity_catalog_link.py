from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0008_datasetversion_judge_validations'),
        ('arena', '0008_snapshot_withheld_prerelease'),
    ]

    operations = [
        migrations.AddField(
            model_name='arenamodel',
            name='catalog_model',
            field=models.OneToOneField(blank=True, help_text='the catalog model that is this contestant (its profile shows the arena figures)', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='arena_contestant', to='catalog.model'),
        ),
    ]
