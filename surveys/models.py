"""The VirtueMap instrument (virtues, dilemmas, options) and the key candidates validated against it."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from scoring.rankings import OPTIONS


class Instrument(models.Model):
    """Metadata of a loaded instrument: where its text comes from and the prompt the run-suite sends."""

    slug = models.SlugField(primary_key=True, max_length=32)
    version = models.CharField(max_length=16)
    source = models.TextField(help_text="Bibliographic source of the instrument's text.")
    llm_prompt_template = models.TextField(blank=True)
    llm_prompt_note = models.TextField(blank=True)
    published_key_provenance = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"{self.slug} v{self.version}"


class Virtue(models.Model):
    id = models.SlugField(primary_key=True, max_length=32)
    name = models.CharField(max_length=64)
    greek_name = models.CharField(max_length=64)
    short_definition = models.CharField(max_length=255)
    definition = models.TextField()
    position = models.PositiveSmallIntegerField(help_text="Order in the instrument.")

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return self.name


class Dilemma(models.Model):
    id = models.CharField(primary_key=True, max_length=8)
    title = models.CharField(max_length=128)
    scenario = models.TextField()
    position = models.PositiveSmallIntegerField(help_text="Order in the instrument.")

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.id}: {self.title}"


class Option(models.Model):
    """One of the five responses A–E to a dilemma."""

    dilemma = models.ForeignKey(Dilemma, on_delete=models.CASCADE, related_name="options")
    letter = models.CharField(max_length=1, choices=[(letter, letter) for letter in OPTIONS])
    text = models.TextField()

    class Meta:
        ordering = ["dilemma", "letter"]
        constraints = [
            models.UniqueConstraint(fields=["dilemma", "letter"], name="option_unique_letter_per_dilemma"),
        ]

    def __str__(self) -> str:
        return f"{self.dilemma_id}{self.letter}"


class KeyCandidate(models.Model):
    """A proposed ordering of a dilemma's five responses from most to least expressive of one virtue.

    N (`n_evaluations`) and Y (`n_confirmations`) always equal the counts of stored responses for this
    candidate. A candidate becomes the operational key (RETAINED) by the promotion rule; at most one
    candidate per dilemma×virtue is retained at a time, earlier ones are kept as SUPERSEDED history.
    """

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RETAINED = "retained", "Retained"
        REJECTED = "rejected", "Rejected"
        SUPERSEDED = "superseded", "Superseded"

    class Provenance(models.TextChoices):
        PUBLISHED = "published", "Published key"
        PROPOSED = "proposed", "Proposed ordering"
        CONSENSUS = "consensus", "Consensus of corrections"

    dilemma = models.ForeignKey(Dilemma, on_delete=models.PROTECT, related_name="key_candidates")
    virtue = models.ForeignKey(Virtue, on_delete=models.PROTECT, related_name="key_candidates")
    ordering = models.CharField(max_length=5, help_text="Options from most to least expressive, e.g. CBDAE.")
    round = models.PositiveSmallIntegerField(help_text="0 for the published key, 1… for validation rounds.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    provenance = models.CharField(max_length=16, choices=Provenance.choices)
    n_evaluations = models.PositiveIntegerField("N", default=0)
    n_confirmations = models.PositiveIntegerField("Y", default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    decided_at = models.DateTimeField(null=True, blank=True, help_text="When it was retained or rejected.")

    class Meta:
        ordering = ["dilemma", "virtue__position", "round"]
        constraints = [
            models.UniqueConstraint(
                fields=["dilemma", "virtue"],
                condition=Q(status="retained"),
                name="key_candidate_one_retained_per_dilemma_virtue",
            ),
            models.UniqueConstraint(fields=["dilemma", "virtue", "round"], name="key_candidate_unique_round"),
            models.CheckConstraint(
                condition=Q(n_confirmations__lte=F("n_evaluations")),
                name="key_candidate_confirmations_within_evaluations",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dilemma_id}×{self.virtue_id} round {self.round}: {self.ordering}"

    @property
    def ordering_letters(self) -> tuple[str, ...]:
        return tuple(self.ordering)

    @property
    def confirmation_rate(self) -> float | None:
        """q = Y/N, or None before the first evaluation."""
        return self.n_confirmations / self.n_evaluations if self.n_evaluations else None
