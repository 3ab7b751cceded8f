"""Every questionnaire answer records the edition (language) its item was shown in. Existing answers get the
instrument's edition of their respondent's consent language: English for instruments whose items exist in English
only (transitivity, MoralBench, AMAeval), whatever language the interface was in."""

from django.db import migrations, models

# The languages each instrument's items were written in when this migration was made (instruments' identities).
ITEM_LANGUAGES = {"virtuemap": ("en", "zh-hans")}


def edition(instrument, language):
    code = (language or "").strip().lower().replace("_", "-")
    code = "zh-hans" if code.split("-")[0] == "zh" else code.split("-")[0]
    return code if code in ITEM_LANGUAGES.get(instrument, ("en",)) else "en"


def backfill(apps, schema_editor):
    QuestionnaireAnswer = apps.get_model("surveys", "QuestionnaireAnswer")
    unmarked = QuestionnaireAnswer.objects.filter(language__isnull=True)
    pairs = unmarked.values_list("session__instrument", "session__respondent__language").distinct()
    for instrument, language in list(pairs):
        unmarked.filter(session__instrument=instrument, session__respondent__language=language).update(
            language=edition(instrument, language)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0018_time_on_item_ms_in_64_bits"),
    ]

    operations = [
        migrations.AddField(
            model_name="questionnaireanswer",
            name="language",
            field=models.CharField(max_length=16, null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="questionnaireanswer",
            name="language",
            field=models.CharField(
                help_text="The edition (language) the item was shown in: the instrument's edition of the consent's "
                "language (`instruments.base.items_edition`), kept for the whole study.",
                max_length=16,
            ),
        ),
    ]
