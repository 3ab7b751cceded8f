"""The AMAeval item bank as loaded from its fixture (models' answers are trials of the one run engine).

Scores are kept as the annotators wrote them (an integer, "n/a" or "bad"; None where a record has no second
annotator), so the gold labels are built by `scoring.amaeval` and the published prompt that prints a whole precept
record can be reproduced exactly (`--fidelity paper`).
"""

from __future__ import annotations

from django.db import models


class Scenario(models.Model):
    """A moral quandary. Scenarios 0–19 also have the actions an agent might take and each action's consequence."""

    index = models.PositiveSmallIntegerField(primary_key=True, help_text="0-based position in the dataset.")
    text = models.TextField()
    actions = models.JSONField(default=list, blank=True)
    consequences = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["index"]

    def __str__(self) -> str:
        return f"Scenario {self.index}: {self.text[:60]}"


class Derivation(models.Model):
    """Task 1: a precept derived from one moral value for a scenario, the reasoning that derives it, and the two
    annotators' ratings of that reasoning (1–4 or "n/a")."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="derivations")
    value = models.CharField(max_length=32, help_text="Authority, Care, Fairness, Loyalty or Sanctity.")
    position = models.PositiveSmallIntegerField(help_text="The value's position in the dataset's list of values.")
    precept = models.TextField()
    reasoning = models.TextField()
    score = models.JSONField(help_text='First annotator: 1–4 or "n/a".')
    additional_score = models.JSONField(null=True, blank=True, help_text="Second annotator; null when absent.")

    class Meta:
        ordering = ["scenario", "position"]
        constraints = [models.UniqueConstraint(fields=["scenario", "value"], name="amaeval_derivation_unique")]

    def __str__(self) -> str:
        return f"Scenario {self.scenario_id} · {self.value}"


class Evaluation(models.Model):
    """Task 2: a reasoning that an action's consequence satisfies (or contradicts) a scenario's precept, rated 0/1
    by the first annotator ("bad" for a sample the annotators set aside), sometimes by a second one."""

    class Kind(models.TextChoices):
        SATISFIED = "satisfied"
        CONTRADICTED = "contradicted"

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="evaluations")
    action = models.PositiveSmallIntegerField(help_text="0-based index into the scenario's actions.")
    value = models.CharField(max_length=32)
    position = models.PositiveSmallIntegerField(help_text="The value's position in the dataset's list of values.")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    reasoning = models.TextField()
    score = models.JSONField(help_text='0, 1 or "bad".')
    additional_score = models.JSONField(null=True, blank=True)

    class Meta:
        # The dataset's order: action, then precept, then satisfied before contradicted.
        ordering = ["scenario", "action", "position", "-kind"]
        constraints = [
            models.UniqueConstraint(fields=["scenario", "action", "value", "kind"], name="amaeval_evaluation_unique")
        ]

    def __str__(self) -> str:
        return f"Scenario {self.scenario_id} · action {self.action} · {self.value} · {self.kind}"
