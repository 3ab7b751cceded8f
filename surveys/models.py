"""People: the consenting respondents of every study and the versioned consent texts they agreed to.

A study is a registered slug (`instruments.registry.studies`): an instrument declares the studies people take it in.
"""

from __future__ import annotations

import hashlib
import uuid

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy

# --- Consent and respondents ------------------------------------------------------------------------------
# Shared by the validation study and the profiling questionnaire: one consent flow, one kind of respondent.


def registered_study(value: str) -> None:
    """Validator: ``value`` is the slug of a study some registered instrument declares."""
    from django.core.exceptions import ValidationError

    from instruments import registry

    if value not in registry.studies():
        raise ValidationError(f"{value!r} is not a registered study ({', '.join(registry.studies())}).")


class ConsentText(models.Model):
    """One version of a study's information sheet and consent statement.

    `text_hash` is the SHA-256 of the information sheet and the statement (and of the study's details, once any is
    filled in), recorded with every consent so a respondent's consent can be tied to the exact words they read. Once
    someone consented to a version it is read-only in admin; new wording is a new version. At most one version per
    study and language is current.
    """

    DETAIL_FIELDS = ("researcher", "institution", "contact", "ethics_reference")

    study = models.CharField(max_length=32, validators=[registered_study], help_text="A registered study's slug.")
    version = models.CharField(max_length=32)
    language = models.CharField(
        max_length=16, default="en", help_text="The language of the text (a language code such as en or zh-hans)."
    )
    title = models.CharField(max_length=200)
    information_sheet = models.TextField(help_text="Plain text; blank lines separate paragraphs.")
    consent_statement = models.TextField(help_text="What the respondent agrees to by ticking the box.")
    # Who answers for the study, shown on the information sheet under the text; blank = the deployment's setting
    # (STUDY_RESEARCHER, STUDY_INSTITUTION, STUDY_CONTACT, STUDY_ETHICS_REFERENCE).
    researcher = models.CharField(max_length=200, blank=True, help_text="The researcher responsible for the study.")
    institution = models.CharField(max_length=200, blank=True, help_text="The institution running the study.")
    contact = models.CharField(
        max_length=254, blank=True, help_text="Where participants write with questions or complaints (an address)."
    )
    ethics_reference = models.CharField(
        max_length=200, blank=True, help_text="The ethics approval: the board and its reference number."
    )
    text_hash = models.CharField(max_length=64, editable=False)
    is_current = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["study", "language", "version"], name="consent_text_unique_version"),
            models.UniqueConstraint(
                fields=["study", "language"], condition=Q(is_current=True), name="consent_text_one_current"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study} consent v{self.version} ({self.language})"

    def save(self, *args, **kwargs) -> None:
        self.text_hash = self.computed_hash
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "text_hash"}
        super().save(*args, **kwargs)

    @property
    def computed_hash(self) -> str:
        # The separator keeps "ab"+"c" and "a"+"bc" apart. The details join only when one is filled in, so that the
        # hashes recorded before they existed still match their texts.
        parts = [self.information_sheet, self.consent_statement]
        details = [getattr(self, name) for name in self.DETAIL_FIELDS]
        if any(details):
            parts += details
        return hashlib.sha256("\x1e".join(parts).encode("utf-8")).hexdigest()

    @property
    def paragraphs(self) -> list[str]:
        return [block.strip() for block in self.information_sheet.split("\n\n") if block.strip()]


class Respondent(models.Model):
    """A person who consented to a study, known only by a random UUID.

    Never holds an IP address, user agent, name or e-mail. A panel ID (Prolific or generic `pid`) is kept
    only as an HMAC-SHA256 under a secret key, so the same person cannot take a study twice, the API token only
    as a SHA-256, and the participant reference shown to the person only as an HMAC-SHA256. Demographics are
    optional: coarse bands, a country and a first language. A flagged respondent failed an attention check or came
    with a panel ID that had already taken part: their answers are kept but excluded from N and Y.
    """

    class Panel(models.TextChoices):
        NONE = "", "None"
        PROLIFIC = "prolific", "Prolific"
        GENERIC = "generic", "Generic panel (?pid=)"

    class AgeBand(models.TextChoices):
        AGE_18_24 = "18-24", "18–24"
        AGE_25_34 = "25-34", "25–34"
        AGE_35_44 = "35-44", "35–44"
        AGE_45_54 = "45-54", "45–54"
        AGE_55_64 = "55-64", "55–64"
        AGE_65_PLUS = "65+", gettext_lazy("65 or over")

    # The answers of the optional questions are read by respondents, so in their language.
    class Gender(models.TextChoices):
        WOMAN = "woman", gettext_lazy("Woman")
        MAN = "man", gettext_lazy("Man")
        NON_BINARY = "non-binary", gettext_lazy("Non-binary")
        OTHER = "other", gettext_lazy("Another gender")

    class Education(models.TextChoices):
        SECONDARY = "secondary", gettext_lazy("Secondary school or less")
        VOCATIONAL = "vocational", gettext_lazy("Vocational or technical qualification")
        UNDERGRADUATE = "undergraduate", gettext_lazy("Undergraduate degree")
        POSTGRADUATE = "postgraduate", gettext_lazy("Postgraduate degree")

    class Suspicion(models.TextChoices):
        # Signs of an automated consent (see virtuemap_site/abuse.py and docs/threat-model.md); flagged, never dropped.
        HONEYPOT = "honeypot", "Filled in the hidden field people never see"
        TOO_FAST = "too_fast", "Consented sooner after the page was shown than STUDY_CONSENT_MIN_SECONDS"
        NO_FORM_TIME = "no_form_time", "Consent sent without a valid signed display time from our page"
        FORM_TIME_REUSED = "form_time_reused", "The page's display time was issued to another browser or used before"
        PANEL_ID_REUSED = "panel_id_reused", "Arrived with a panel ID that already took part; answers not counted"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    study = models.CharField(max_length=32, validators=[registered_study], help_text="A registered study's slug.")
    consent_text = models.ForeignKey(ConsentText, on_delete=models.PROTECT, related_name="respondents")
    consent_version = models.CharField(max_length=32)
    language = models.CharField(max_length=16, default="en", help_text="The language of the consent text agreed to.")
    consent_text_hash = models.CharField(max_length=64)
    consented_at = models.DateTimeField()
    panel = models.CharField(max_length=16, choices=Panel.choices, blank=True, default=Panel.NONE)
    # NULL rather than "" for "none": the unique constraints must not treat all absent values as one.
    panel_id_hash = models.CharField(max_length=64, null=True, blank=True, editable=False)  # noqa: DJ001
    # HMAC of the panel ID with the panel's study and session IDs: only an arrival from the same panel session may
    # resume this respondent (a panel ID alone is an identifier, not a credential).
    panel_session_hash = models.CharField(max_length=64, null=True, blank=True, editable=False)  # noqa: DJ001
    # 16 bits of a keyed hash of the client's network (/24 or /48) at consent: many answers from one network show, no
    # network or address can be read back (65,536 buckets, each shared by 256 IPv4 /24 networks).
    network_bucket = models.PositiveIntegerField(null=True, blank=True, editable=False)
    token_hash = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False)
    # HMAC of the participant reference the person was shown at consent (surveys/references.py), with which they
    # withdraw or resume from any browser; NULL for respondents who consented before references existed.
    reference_hash = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False)
    age_band = models.CharField(max_length=8, choices=AgeBand.choices, blank=True)
    gender = models.CharField(max_length=16, choices=Gender.choices, blank=True)
    # Countries and languages from the ISO lists, or "other" (surveys/demographics.py, which checks them).
    country = models.CharField(max_length=8, blank=True, help_text="ISO 3166-1 alpha-2 code, or 'other'.")
    education = models.CharField(max_length=16, choices=Education.choices, blank=True)
    native_language = models.CharField(max_length=16, blank=True, help_text="ISO 639-1 code, or 'other'.")
    attention_checks_failed = models.PositiveSmallIntegerField(default=0)
    flagged = models.BooleanField(
        default=False,
        help_text="Excluded from N and Y: failed an attention check, or came with a panel ID that already took part.",
    )
    suspicion = models.CharField(
        max_length=128,
        blank=True,
        help_text="Why this consent looks automated: comma-separated codes (honeypot, too_fast, no_form_time, "
        "form_time_reused, panel_id_reused); empty = nothing suspicious. The respondent continues normally; "
        "researchers decide, and the key review weighs it.",
    )
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-consented_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "panel_id_hash"],
                condition=Q(panel_id_hash__isnull=False),
                name="respondent_one_per_panel_id_and_study",
            ),
        ]

    def __str__(self) -> str:
        return str(self.id)

    @property
    def is_complete(self) -> bool:
        return self.completed_at is not None


class Withdrawal(models.Model):
    """That someone withdrew from a study, and on which day: what the study dashboard counts. The respondent's rows
    are gone, and this one holds nothing of them (no id, no time of day), so it leads back to no one."""

    study = models.CharField(max_length=32)
    withdrawn_on = models.DateField()

    class Meta:
        ordering = ["-withdrawn_on"]

    def __str__(self) -> str:
        return f"withdrawal from {self.study} on {self.withdrawn_on}"


# --- The shared questionnaire ----------------------------------------------------------------------------------
# Every instrument whose people answer one item per page (`instruments.base.Questionnaire`) stores here.


class QuestionnaireSession(models.Model):
    """A respondent's questionnaire: the items they are asked, in the order drawn from ``seed`` at consent."""

    respondent = models.OneToOneField(Respondent, on_delete=models.CASCADE, related_name="questionnaire_session")
    instrument = models.CharField(max_length=32, help_text="The registered instrument the study belongs to.")
    seed = models.BigIntegerField(help_text="Seeds the order, so the sequence can be reproduced.")
    design = models.JSONField(default=dict, blank=True, help_text="What the instrument chose, e.g. the block.")
    sequence = models.JSONField(help_text="The items in the order asked; position n is sequence[n - 1].")
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.instrument} questionnaire of {self.respondent_id}"

    @property
    def is_complete(self) -> bool:
        return self.completed_at is not None


class QuestionnaireAnswer(models.Model):
    """One answer, stored exactly once per position, with the item as it was shown."""

    session = models.ForeignKey(QuestionnaireSession, on_delete=models.CASCADE, related_name="answers")
    position = models.PositiveSmallIntegerField(help_text="1-based position in the session's sequence.")
    item = models.JSONField(help_text="The item as shown (a copy of its sequence entry).")
    value = models.JSONField(help_text="The answer as the instrument read it.")
    time_on_item_ms = models.PositiveBigIntegerField(null=True, blank=True)
    language = models.CharField(
        max_length=16,
        help_text="The edition (language) the item was shown in: the instrument's edition of the consent's language "
        "(`instruments.base.items_edition`), kept for the whole study.",
    )
    answered_at = models.DateTimeField()
    replaced = models.JSONField(
        default=list,
        blank=True,
        help_text="Earlier answers to this position that the respondent changed with Back before completing, oldest "
        'first: [{"value", "answered_at"}]. Nothing submitted is lost.',
    )

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="questionnaire_answer_once_per_position"),
            models.CheckConstraint(condition=Q(position__gte=1), name="questionnaire_answer_position_from_1"),
        ]

    def __str__(self) -> str:
        return f"answer {self.position} of session {self.session_id}"
