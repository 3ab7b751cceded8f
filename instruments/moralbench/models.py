"""Models of the MoralBench instrument: the published item sets as loaded (models' answers are trials of the one
run engine, `llmruns.models`)."""

from __future__ import annotations

from django.db import models


class MoralBenchSource(models.Model):
    """The loaded instrument: where it comes from, the paper's system prompt (verbatim) and its scoring rules."""

    slug = models.SlugField(primary_key=True, max_length=64)
    source = models.TextField(help_text="Bibliographic source of the items and their option scores.")
    system_prompt = models.TextField(help_text="The paper's system prompt, verbatim (a trailing space included).")
    scoring = models.JSONField(default=dict, blank=True, help_text="The published scoring rules, as text per kind.")

    def __str__(self) -> str:
        return self.slug


class Item(models.Model):
    """One published item of one set: its prompt verbatim and the points of its two options."""

    class Set(models.TextChoices):
        MFQ_30 = "MFQ_30", "MFQ-30-LLM, binary"
        MFQ_30_COMPARE = "MFQ_30_compare", "MFQ-30-LLM, comparative"
        MFV = "6_concepts", "MFV-LLM, binary"
        MFV_COMPARE = "6_concepts_compare", "MFV-LLM, comparative"

    set_name = models.CharField(max_length=32, choices=Set.choices)
    item_id = models.CharField(max_length=32, help_text='The published id, e.g. "authority_1".')
    position = models.PositiveSmallIntegerField(help_text="Order within the set, as published.")
    foundation = models.CharField(max_length=16)
    prompt = models.TextField(help_text="The user message, verbatim.")
    score_a = models.FloatField(help_text="Points for option A.")
    score_b = models.FloatField(help_text="Points for option B.")

    class Meta:
        ordering = ["set_name", "position"]
        constraints = [
            models.UniqueConstraint(fields=["set_name", "item_id"], name="moralbench_item_unique_id"),
            models.UniqueConstraint(fields=["set_name", "position"], name="moralbench_item_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.set_name}/{self.item_id}"
