"""The VirtueMap instrument (virtues, dilemmas, options), its key candidates, the validation study that decides them,
profiling submissions, and VirtueMap's view of the result store.

The content and study tables moved here from `surveys` (which keeps the respondents and consent texts): see the
migrations `0002_content_and_study_from_surveys` and `0003_tables_named_after_the_app`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy

from llmruns.models import Result
from scoring.rankings import OPTIONS
from surveys.models import Respondent


class VirtueMapInstrument(models.Model):
    """Metadata of a loaded instrument: where its text comes from and the prompt the run-suite sends."""

    slug = models.SlugField(primary_key=True, max_length=32)
    version = models.CharField(max_length=16)
    source = models.TextField(help_text="Bibliographic source of the instrument's text.")
    llm_prompt_template = models.TextField(blank=True)
    llm_prompt_note = models.TextField(blank=True)
    published_key_provenance = models.TextField(blank=True)
    translations = models.JSONField(
        default=dict,
        blank=True,
        help_text='Other editions: language → {"llm_prompt_template", "llm_prompt_note", "translation_note"}.',
    )

    def __str__(self) -> str:
        return f"{self.slug} v{self.version}"


class Virtue(models.Model):
    id = models.SlugField(primary_key=True, max_length=32)
    name = models.CharField(max_length=64)
    greek_name = models.CharField(max_length=64)
    short_definition = models.CharField(max_length=255)
    definition = models.TextField()
    position = models.PositiveSmallIntegerField(help_text="Order in the instrument.")
    translations = models.JSONField(
        default=dict,
        blank=True,
        help_text='Other editions: language → {"name", "short_definition", "definition"} (editions.item_text).',
    )

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return self.name


class Dilemma(models.Model):
    id = models.CharField(primary_key=True, max_length=8)
    title = models.CharField(max_length=128)
    scenario = models.TextField()
    position = models.PositiveSmallIntegerField(help_text="Order in the instrument.")
    translations = models.JSONField(
        default=dict, blank=True, help_text='Other editions: language → {"title", "scenario"} (editions.item_text).'
    )

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.id}: {self.title}"


class Option(models.Model):
    """One of the five responses A–E to a dilemma."""

    dilemma = models.ForeignKey(Dilemma, on_delete=models.CASCADE, related_name="options")
    letter = models.CharField(max_length=1, choices=[(letter, letter) for letter in OPTIONS])
    text = models.TextField()
    translations = models.JSONField(
        default=dict, blank=True, help_text='Other editions: language → {"text"} (editions.item_text).'
    )

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

    Each edition of the instrument (`language`: en, zh-hans) validates its own keys, since a translated response
    may express a virtue differently: rounds, the one open round and the one retained key are per dilemma × virtue
    × language, and only respondents who consented in that language answer its candidates.
    """

    class Status(models.TextChoices):
        OPEN = "open", gettext_lazy("Open")
        # The promotion rule decided, but the evidence looked manufactured: a researcher decides (integrity.py).
        HELD = "held", gettext_lazy("Held for review")
        RETAINED = "retained", gettext_lazy("Retained")
        REJECTED = "rejected", gettext_lazy("Rejected")
        SUPERSEDED = "superseded", gettext_lazy("Superseded")

    class Provenance(models.TextChoices):
        PUBLISHED = "published", gettext_lazy("Published key")
        PROPOSED = "proposed", gettext_lazy("Proposed ordering")
        CONSENSUS = "consensus", gettext_lazy("Consensus of corrections")
        # A translated edition's first round starts from the English edition's key (`validation_open`).
        ENGLISH_KEY = "english_key", gettext_lazy("The English edition's retained key")

    dilemma = models.ForeignKey(Dilemma, on_delete=models.PROTECT, related_name="key_candidates")
    virtue = models.ForeignKey(Virtue, on_delete=models.PROTECT, related_name="key_candidates")
    language = models.CharField(
        max_length=16,
        default="en",
        help_text="The edition whose respondents validate it: a code of settings.LANGUAGES (en, zh-hans).",
    )
    ordering = models.CharField(max_length=5, help_text="Options from most to least expressive, e.g. CBDAE.")
    round = models.PositiveSmallIntegerField(help_text="0 for the published key, 1… for validation rounds.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    provenance = models.CharField(max_length=16, choices=Provenance.choices)
    n_evaluations = models.PositiveIntegerField("N", default=0)
    n_confirmations = models.PositiveIntegerField("Y", default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    decided_at = models.DateTimeField(null=True, blank=True, help_text="When it was retained or rejected.")
    needs_review = models.BooleanField(
        default=False,
        help_text="A researcher should look: the decision was held, or the evidence changed after it was taken.",
    )
    review_reasons = models.JSONField(
        default=list, blank=True, help_text="Why it needs review: a list of {code, message}; empty once reviewed."
    )

    class Meta:
        ordering = ["dilemma", "virtue__position", "language", "round"]
        constraints = [
            models.UniqueConstraint(
                fields=["dilemma", "virtue", "language"],
                condition=Q(status="retained"),
                name="key_candidate_one_retained_per_edition",
            ),
            models.UniqueConstraint(
                fields=["dilemma", "virtue", "language", "round"], name="key_candidate_unique_round_per_edition"
            ),
            # One round in progress per pair and edition: open for answers, or held for review.
            models.UniqueConstraint(
                fields=["dilemma", "virtue", "language"],
                condition=Q(status__in=["open", "held"]),
                name="key_candidate_one_open_per_edition",
            ),
            models.CheckConstraint(
                condition=Q(n_confirmations__lte=F("n_evaluations")),
                name="key_candidate_confirmations_within_evaluations",
            ),
        ]

    def __str__(self) -> str:
        # The English edition's candidates read as they always did; another edition's name their language.
        edition = "" if self.language == "en" else f" ({self.language})"
        return f"{self.dilemma_id}×{self.virtue_id}{edition} round {self.round}: {self.ordering}"

    @classmethod
    def from_db(cls, db, field_names, values, **kwargs):
        candidate = super().from_db(db, field_names, values, **kwargs)
        # What the row said when read: whether a save takes a key out of use (`instruments.virtuemap.apps`).
        candidate.status_loaded = candidate.__dict__.get("status")
        return candidate

    @property
    def ordering_letters(self) -> tuple[str, ...]:
        return tuple(self.ordering)

    @property
    def confirmation_rate(self) -> float | None:
        """q = Y/N, or None before the first evaluation."""
        return self.n_confirmations / self.n_evaluations if self.n_evaluations else None


# --- The validation study ----------------------------------------------------------------------------------


class Assignment(models.Model):
    """One item served to a respondent of the validation study: a key candidate to confirm or correct, or an
    instructed-response attention check ("place response C first").

    Items are served one at a time at consecutive positions. An unanswered assignment counts as in flight
    for its candidate until `expires_at`; the respondent may still answer it later. A respondent never gets
    the same dilemma×virtue twice, whichever round's candidate it was.
    """

    class Kind(models.TextChoices):
        VALIDATION = "validation", "Validation item"
        ATTENTION_CHECK = "attention_check", "Attention check"

    respondent = models.ForeignKey(Respondent, on_delete=models.CASCADE, related_name="assignments")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    position = models.PositiveSmallIntegerField(help_text="1 for the first item the respondent saw.")
    candidate = models.ForeignKey(
        KeyCandidate, on_delete=models.CASCADE, null=True, blank=True, related_name="assignments"
    )
    dilemma = models.ForeignKey(Dilemma, on_delete=models.PROTECT, related_name="+")
    virtue = models.ForeignKey(Virtue, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    displayed_order = models.CharField(max_length=5, help_text="The options in the order they were first shown.")
    check_letter = models.CharField(max_length=1, blank=True, help_text="Attention checks: the response to put first.")
    check_answer = models.CharField(max_length=5, blank=True)
    check_passed = models.BooleanField(null=True, blank=True)
    served_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["respondent", "position"]
        constraints = [
            models.UniqueConstraint(fields=["respondent", "position"], name="assignment_unique_position"),
            models.UniqueConstraint(
                fields=["respondent", "dilemma", "virtue"],
                condition=Q(kind="validation"),
                name="assignment_dilemma_virtue_once_per_respondent",
            ),
            models.CheckConstraint(
                condition=Q(kind="attention_check", candidate__isnull=True, virtue__isnull=True)
                | Q(kind="validation", candidate__isnull=False, virtue__isnull=False),
                name="assignment_kind_matches_target",
            ),
        ]
        indexes = [models.Index(fields=["candidate", "answered_at", "expires_at"], name="assignment_in_flight")]

    def __str__(self) -> str:
        return f"{self.respondent_id} #{self.position} {self.kind}"


class ValidationResponse(models.Model):
    """A respondent's verdict on a key candidate: confirmed, or corrected to `ordering`.

    `ordering` is always the ordering the respondent endorsed (the candidate's own when confirmed). A
    response counts towards N and Y when it arrived while the candidate was open (`counted`) and its
    respondent is not flagged; N and Y always equal those counts.
    """

    class Presentation(models.TextChoices):
        # What the respondent saw when answering. Blank: answered before this was recorded, on the earlier page
        # whose large "Confirm this order" button stood above a collapsed correction form.
        IN_PLACE = "in_place", "Web page: the proposed order once, reorderable in place, two equal buttons"
        API = "api", "The study API (the client's own presentation)"

    respondent = models.ForeignKey(Respondent, on_delete=models.CASCADE, related_name="validation_responses")
    candidate = models.ForeignKey(KeyCandidate, on_delete=models.CASCADE, related_name="responses")
    confirmed = models.BooleanField()
    ordering = models.CharField(max_length=5)
    displayed_order = models.CharField(max_length=5)
    presentation = models.CharField(
        max_length=16,
        choices=Presentation.choices,
        blank=True,
        help_text="How the item was presented; blank for answers given before this was recorded.",
    )
    time_on_item_ms = models.PositiveBigIntegerField(null=True, blank=True)
    time_measured_by = models.CharField(
        max_length=8,
        choices=[("server", "Server: from serving the item"), ("client", "Client: from showing the page")],
        blank=True,
        help_text="Which clock measured time_on_item_ms; blank for answers given before this was recorded.",
    )
    language = models.CharField(
        max_length=16,
        help_text="The edition the item was shown in (en, zh-hans): the candidate's, the respondent's consent edition.",
    )
    counted = models.BooleanField(help_text="False when it arrived after the candidate was decided.")
    submitted_at = models.DateTimeField()

    class Meta:
        ordering = ["submitted_at"]
        constraints = [
            models.UniqueConstraint(fields=["respondent", "candidate"], name="validation_response_once_per_candidate"),
        ]

    def __str__(self) -> str:
        verdict = "confirmed" if self.confirmed else f"corrected to {self.ordering}"
        return f"{self.respondent_id} on {self.candidate_id}: {verdict}"


class KeyDecision(models.Model):
    """An entry in the audit trail of key candidates: automatic promotions and rejections with their
    evidence, supersessions, and every admin action with who took it and why. Never edited."""

    class Action(models.TextChoices):
        OPENED = "opened", "Opened"
        RETAINED = "retained", "Retained"
        REJECTED = "rejected", "Rejected"
        SUPERSEDED = "superseded", "Superseded"
        REOPENED = "reopened", "Reopened"
        HELD = "held", "Held for review (the evidence looked manufactured)"
        FLAGGED = "flagged", "Flagged for review (the evidence changed after the decision)"
        REVIEWED = "reviewed", "Reviewed: the decision stands"

    candidate = models.ForeignKey(KeyCandidate, on_delete=models.CASCADE, related_name="decisions")
    action = models.CharField(max_length=16, choices=Action.choices)
    automatic = models.BooleanField(help_text="Taken by the promotion rule rather than by a person.")
    override = models.BooleanField(
        default=False,
        help_text="A researcher's decision against the promotion rule (e.g. retaining a candidate with N = 0), "
        "taken explicitly with a reason.",
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_by_username = models.CharField(max_length=150, blank=True)
    reason = models.TextField(blank=True)
    n_evaluations = models.PositiveIntegerField("N")
    n_confirmations = models.PositiveIntegerField("Y")
    confirmation_rate = models.FloatField("q", null=True, blank=True)
    wilson_low = models.FloatField(null=True, blank=True)
    wilson_high = models.FloatField(null=True, blank=True)
    n_corrections = models.PositiveIntegerField(default=0)
    agreement_tau = models.FloatField(
        null=True, blank=True, help_text="Mean Kendall τ between the corrections and the candidate."
    )
    related_candidate = models.ForeignKey(
        KeyCandidate,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The next round opened by a rejection, or the key that superseded this one.",
    )
    concerns = models.JSONField(
        default=list,
        blank=True,
        help_text="Held or flagged: what the review is about, a list of {code, message, value, limit}.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        who = "rule" if self.automatic else self.decided_by_username or "admin"
        return f"{self.candidate} {self.action} by {who}"


# --- Profiling -------------------------------------------------------------------------------------------------


class ProfilingSubmission(models.Model):
    """The profiling answers of a respondent who consented to research use, kept under their random UUID.

    Only people who consented get one (nothing is stored for anyone else); withdrawing deletes it with the
    respondent. Holds the rankings (dilemma id → letters, null for a skipped dilemma) and what they scored
    against at the time: the virtue scores and the retained keys used, since keys can change later.
    """

    respondent = models.OneToOneField(Respondent, on_delete=models.CASCADE, related_name="profiling_submission")
    rankings = models.JSONField(help_text='Dilemma id → ranking ("CBADE"), null when skipped.')
    start_orders = models.JSONField(
        default=dict,
        blank=True,
        help_text="Dilemma id → the order the responses were first shown in (random per person), for the dilemmas "
        "shown by the questionnaire; empty for answers stored before this was recorded.",
    )
    kept_unmoved = models.JSONField(
        default=list,
        blank=True,
        help_text="Dilemma ids where the person chose “I have not moved anything” and kept the order shown.",
    )
    language = models.CharField(
        max_length=16, default="en", help_text="The questionnaire language, whose keys scored it (settings.LANGUAGES)."
    )
    scores = models.JSONField(help_text="Virtue id → score 0–100, null without an answered dilemma for it.")
    keys_used = models.JSONField(help_text="Ids of the retained key candidates the scores used.")
    edition_version = models.CharField(
        max_length=32,
        blank=True,
        help_text='The version of the edition\'s items the answers were given to, e.g. "2" (English) or '
        '"2 (zh-hans 2)"; blank for answers stored before editions were versioned.',
    )
    key_language = models.JSONField(
        default=dict,
        blank=True,
        help_text="Dilemma id → virtue id → the edition whose key scored it: the questionnaire's language where that "
        "edition has a retained key, else en. Empty for answers stored before this was recorded.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return f"Profiling answers of {self.respondent_id}"

    @property
    def answered_count(self) -> int:
        return sum(1 for ranking in self.rankings.values() if ranking)


class VirtueMapProfile(Result):
    """A published VirtueMap result as researchers enter or correct it by hand in admin: a profile per model."""

    class Meta:
        proxy = True
        verbose_name = "VirtueMap model profile"
        verbose_name_plural = "VirtueMap model profiles"

    def __str__(self) -> str:
        return f"Profile of {self.model}"
