from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('arena', '0007_model_life'),
    ]

    operations = [
        migrations.AddField(
            model_name='ratingsnapshot',
            name='withheld',
            field=models.JSONField(blank=True, default=list, help_text='rows of pre-release variants under test: fitted, never shown (frozen at release)'),
        ),
    ]
