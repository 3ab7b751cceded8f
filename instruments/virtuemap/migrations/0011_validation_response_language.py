"""Every validation response records the edition (language) its item was shown in. Existing responses get their
respondent's consent language (the edition whose candidates they were served), else English."""

from django.db import migrations, models

EDITIONS = ("en", "zh-hans")


def edition(language):
    """The edition of a stored language code: any Chinese code reads zh-hans, an unknown one en."""
    code = (language or "").strip().lower().replace("_", "-")
    code = "zh-hans" if code.split("-")[0] == "zh" else code.split("-")[0]
    return code if code in EDITIONS else "en"


def backfill(apps, schema_editor):
    ValidationResponse = apps.get_model("virtuemap", "ValidationResponse")
    Respondent = apps.get_model("surveys", "Respondent")
    languages = Respondent.objects.filter(
        pk__in=ValidationResponse.objects.filter(language__isnull=True).values("respondent_id")
    ).values_list("language", flat=True).distinct()
    for language in list(languages):
        ValidationResponse.objects.filter(language__isnull=True, respondent__language=language).update(
            language=edition(language)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("virtuemap", "0010_profiling_records_edition_version"),
        ("surveys", "0018_time_on_item_ms_in_64_bits"),
    ]

    operations = [
        migrations.AddField(
            model_name="validationresponse",
            name="language",
            field=models.CharField(max_length=16, null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="validationresponse",
            name="language",
            field=models.CharField(
                help_text="The edition the item was shown in (en, zh-hans): the candidate's, the respondent's consent "
                "edition.",
                max_length=16,
            ),
        ),
    ]
