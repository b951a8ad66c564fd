from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('arena', '0006_battle_setting'),
    ]

    operations = [
        migrations.AddField(
            model_name='arenamodel',
            name='retired_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='arenamodel',
            name='retire_reason',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='arenamodel',
            name='final_rating',
            field=models.JSONField(blank=True, help_text='raw and style rows frozen at retirement or release', null=True),
        ),
        migrations.AddField(
            model_name='arenamodel',
            name='prerelease',
            field=models.BooleanField(default=False, help_text="a provider's variant under anonymous pre-release testing"),
        ),
        migrations.AddField(
            model_name='arenamodel',
            name='released_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
