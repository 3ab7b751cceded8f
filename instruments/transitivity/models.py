"""Models of the transitivity instrument: the vignettes and people's pairwise answers (models' choices are trials
of the one run engine, `llmruns.models`).

Conventions shared by every table here:
- The alternatives are the seven principles in `Principle.index` order (the fixture's order, A, Ce, Cp, F, Li,
  Lo, S), which is the alternative order of `scoring.transitivity`. A pair is stored in its canonical direction
  (`principle_x` has the smaller index), so the 21 pairs of a block come out in the order (0,1), (0,2), …, (5,6).
- A choice probability is P(x judged morally worse than y) for the canonical x and y, whatever the order the
  two situations were shown in: `scoring.transitivity`'s P_xy, x ≻ y meaning "x is worse".
- A presentation order is ORIGINAL (Situation 1 shows x) or REVERSED (Situation 1 shows y).
"""

from __future__ import annotations

from django.db import models

from surveys.models import QuestionnaireAnswer

# --- the instrument ---------------------------------------------------------------------------------------


class PresentationOrder(models.TextChoices):
    ORIGINAL = "original", "Original (Situation 1 = the pair's first principle)"
    REVERSED = "reversed", "Reversed (Situation 1 = the pair's second principle)"


class TransitivityInstrument(models.Model):
    """Metadata of the loaded instrument: its source, design notes and the paper's prompt.

    `prompt_template` has the placeholders {vignette_1} and {vignette_2} (the texts shown as Situation 1 and 2).
    """

    slug = models.SlugField(primary_key=True, max_length=64)
    version = models.CharField(max_length=16)
    source = models.TextField(help_text="Bibliographic source of the vignettes and ratings.")
    prompt_template = models.TextField()
    extraction = models.TextField(blank=True, help_text="How the paper read choices from the model.")
    design = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.slug} v{self.version}"


class Principle(models.Model):
    """A moral-foundation principle: one alternative of the choice sets."""

    code = models.CharField(primary_key=True, max_length=4)
    index = models.PositiveSmallIntegerField(
        unique=True, help_text="0-based alternative index in scoring.transitivity (the fixture's order)."
    )
    name = models.CharField(max_length=64)
    definition = models.TextField()
    military_example = models.TextField(blank=True)

    class Meta:
        ordering = ["index"]

    def __str__(self) -> str:
        return f"{self.code} ({self.name})"


class Block(models.Model):
    """A severity block: one vignette per principle, of comparable wrongness within the block."""

    number = models.PositiveSmallIntegerField(primary_key=True)
    severity_rank = models.PositiveSmallIntegerField(help_text="1 = the most severe violations.")

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"Block {self.number}"


class Vignette(models.Model):
    """A one-sentence violation of one principle, with its mean human wrongness rating (1–5 Likert)."""

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="vignettes")
    principle = models.ForeignKey(Principle, on_delete=models.PROTECT, related_name="vignettes")
    text = models.TextField()
    rating = models.FloatField(help_text="Mean human wrongness rating.")
    position = models.PositiveSmallIntegerField(help_text="Order within the block in the source table.")

    class Meta:
        ordering = ["block", "position"]
        constraints = [
            models.UniqueConstraint(fields=["block", "principle"], name="vignette_one_per_block_principle"),
        ]

    def __str__(self) -> str:
        return f"Block {self.block_id} {self.principle_id}: {self.text[:60]}"


# --- people's answers -----------------------------------------------------------------------------------------


class PairwiseAnswerManager(models.Manager):
    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(session__instrument="transitivity")


class PairwiseAnswer(QuestionnaireAnswer):
    """People's pairwise choices as the shared questionnaire stores them (`surveys.QuestionnaireAnswer` of the
    transitivity study), for their admin list and export: nothing is stored here."""

    objects = PairwiseAnswerManager()

    class Meta:
        proxy = True
        ordering = ["session", "position"]
        verbose_name = "pairwise answer"
