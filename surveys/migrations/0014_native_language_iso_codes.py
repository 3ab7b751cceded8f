"""Countries and native languages from the ISO lists (surveys/demographics.py). Countries were already stored as ISO
3166-1 alpha-2 codes or "other", so only the field's fixed list goes; a native language stored as "english" becomes
its ISO 639-1 code "en" ("other" stays "other"). Back: "en" becomes "english" and every other code "other", the
only answers the earlier list had."""

from django.db import migrations, models


def languages_to_iso_codes(apps, schema_editor):
    apps.get_model("surveys", "Respondent").objects.filter(native_language="english").update(native_language="en")


def languages_to_the_earlier_list(apps, schema_editor):
    Respondent = apps.get_model("surveys", "Respondent")
    Respondent.objects.filter(native_language="en").update(native_language="english")
    Respondent.objects.exclude(native_language__in=["", "english"]).update(native_language="other")


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0013_consent_text_study_details"),
    ]

    operations = [
        migrations.AlterField(
            model_name="respondent",
            name="country",
            field=models.CharField(blank=True, help_text="ISO 3166-1 alpha-2 code, or 'other'.", max_length=8),
        ),
        migrations.AlterField(
            model_name="respondent",
            name="native_language",
            field=models.CharField(blank=True, help_text="ISO 639-1 code, or 'other'.", max_length=16),
        ),
        migrations.RunPython(languages_to_iso_codes, languages_to_the_earlier_list),
    ]
