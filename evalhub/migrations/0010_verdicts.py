# Expectations stored without `required` need no rewrite: `required` now defaults to true, so they gate (README,
# "Upgrading"); the editor shows such a row as required.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evalhub', '0009_shipped_eval_rows'),
    ]

    operations = [
        migrations.AddField(
            model_name='scenario',
            name='tool_errors_expected',
            field=models.BooleanField(default=False, help_text='Tool errors are expected (e.g. a restraint test): they do not fail the run or blame the server.'),
        ),
    ]
