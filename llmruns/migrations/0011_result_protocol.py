from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("llmruns", "0010_result_diagnostics"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="protocol",
            field=models.CharField(
                blank=True,
                help_text="The named protocol the result's answers were asked by (e.g. VirtueMap's original or paper); "
                "results of different protocols are not comparable. Blank where none was recorded.",
                max_length=32,
            ),
        ),
    ]
