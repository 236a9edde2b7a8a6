# The plain scorer ↔ scenario many-to-many becomes the ScenarioScorer model over the same table (state only),
# then gains its advisory flag and threshold (real columns). Existing attachments stay, gating.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evalhub', '0010_verdicts'),
        ('scorers', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ScenarioScorer',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('scenario', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scorer_attachments', to='evalhub.scenario')),
                        ('scorer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attachments', to='scorers.scorer')),
                    ],
                    options={
                        'db_table': 'scorers_scorer_scenarios',
                    },
                ),
                migrations.AlterField(
                    model_name='scorer',
                    name='scenarios',
                    field=models.ManyToManyField(blank=True, related_name='scorers', through='scorers.ScenarioScorer', to='evalhub.scenario'),
                ),
            ],
        ),
        migrations.AddField(
            model_name='scenarioscorer',
            name='advisory',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='scenarioscorer',
            name='threshold',
            field=models.FloatField(blank=True, null=True),
        ),
    ]
