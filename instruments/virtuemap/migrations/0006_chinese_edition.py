"""The Chinese edition: a ``translations`` field on the content rows, filled in where the instrument is already
loaded, so that a deployment gets the Chinese texts on `migrate` without loading the instrument again.

The data step reads the edition fixture as it is when the migration runs and touches only rows it translates; it is
self-contained (no application code), so later changes to the loader cannot change what it did.
"""

import json
from pathlib import Path

from django.db import migrations, models

LANGUAGE = "zh-hans"
EDITION = Path(__file__).resolve().parent.parent / "fixtures" / f"instrument.{LANGUAGE}.json"


def _translate(row, texts):
    row.translations = {**(row.translations or {}), LANGUAGE: texts}
    row.save(update_fields=["translations"])


def add_the_chinese_texts(apps, schema_editor):
    if not EDITION.exists():
        return
    edition = json.loads(EDITION.read_text(encoding="utf-8"))
    virtues = {virtue["id"]: virtue for virtue in edition["virtues"]}
    dilemmas = {dilemma["id"]: dilemma for dilemma in edition["dilemmas"]}
    for virtue in apps.get_model("virtuemap", "Virtue").objects.filter(pk__in=virtues):
        source = virtues[virtue.pk]
        _translate(virtue, {name: source[name] for name in ("name", "short_definition", "definition")})
    for dilemma in apps.get_model("virtuemap", "Dilemma").objects.filter(pk__in=dilemmas):
        _translate(dilemma, {"title": dilemmas[dilemma.pk]["title"], "scenario": dilemmas[dilemma.pk]["scenario"]})
    for option in apps.get_model("virtuemap", "Option").objects.filter(dilemma_id__in=dilemmas):
        text = dilemmas[option.dilemma_id]["options"].get(option.letter)
        if text:
            _translate(option, {"text": text})
    prompt = edition["llm_prompt_template"]
    for instrument in apps.get_model("virtuemap", "VirtueMapInstrument").objects.filter(slug=edition["instrument"]):
        _translate(
            instrument,
            {
                "llm_prompt_template": prompt["user"],
                "llm_prompt_note": prompt["note"],
                "translation_note": edition["translation_note"],
            },
        )


class Migration(migrations.Migration):

    dependencies = [
        ('virtuemap', '0005_key_decision_marks_overrides'),
    ]

    operations = [
        migrations.AddField(
            model_name='dilemma',
            name='translations',
            field=models.JSONField(blank=True, default=dict, help_text='Other editions: language → {"title", "scenario"} (editions.item_text).'),
        ),
        migrations.AddField(
            model_name='option',
            name='translations',
            field=models.JSONField(blank=True, default=dict, help_text='Other editions: language → {"text"} (editions.item_text).'),
        ),
        migrations.AddField(
            model_name='virtue',
            name='translations',
            field=models.JSONField(blank=True, default=dict, help_text='Other editions: language → {"name", "short_definition", "definition"} (editions.item_text).'),
        ),
        migrations.AddField(
            model_name='virtuemapinstrument',
            name='translations',
            field=models.JSONField(blank=True, default=dict, help_text='Other editions: language → {"llm_prompt_template", "llm_prompt_note", "translation_note"}.'),
        ),
        migrations.RunPython(add_the_chinese_texts, migrations.RunPython.noop),
    ]
