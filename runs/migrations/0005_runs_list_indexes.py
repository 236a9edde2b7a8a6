# The Runs list's indexes (see Run.Meta): its order (created_at, id) followed by the columns it filters on, so a
# page's ids and its count are read from the index alone. They replace the two narrower indexes they extend.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('runs', '0004_score_result_usage'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='run',
            name='runs_run_scenari_f95793_idx',
        ),
        migrations.RemoveIndex(
            model_name='run',
            name='runs_run_created_fb8bfb_idx',
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['-created_at', '-id', 'scenario', 'status', 'passed', 'model'], name='runs_list_idx'),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['scenario', '-created_at', '-id', 'status', 'passed', 'model'], name='runs_list_scenario_idx'),
        ),
    ]
