from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0007_private_model_slugs'),
    ]

    operations = [
        migrations.AddField(
            model_name='datasetversion',
            name='judge_validations',
            field=models.JSONField(blank=True, default=dict, help_text="The judge's agreement with this version's ground truth, by judge label: {label: {pairs, pearson_r, band_agreement, prompt, at, ...}} (PoliCon: manage.py validate_judge)"),
        ),
    ]
