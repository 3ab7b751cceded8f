"""Writes for the surveys app: loading the instrument, consent and respondents, validation responses and
promotion."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from scoring.rankings import validate_ranking
from surveys import selectors
from surveys.consent_defaults import DEFAULT_CONSENT_TEXTS
from surveys.models import ConsentText, Dilemma, Instrument, KeyCandidate, Option, Respondent, Virtue
from virtuemap_site.errors import ApplicationError

INSTRUMENT_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "instrument.json"


@dataclass
class InstrumentLoadReport:
    """How many rows `instrument_load` created and updated; all zero on a re-run of the same file."""

    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)

    def count(self, bucket: dict[str, int], model: type[models.Model]) -> None:
        bucket[model.__name__] = bucket.get(model.__name__, 0) + 1

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)


def _upsert(
    model: type[models.Model], report: InstrumentLoadReport, lookup: dict[str, Any], values: dict[str, Any]
) -> models.Model:
    """Create the row, or update only the fields that differ, so a re-run writes nothing."""
    row = model.objects.filter(**lookup).first()
    if row is None:
        report.count(report.created, model)
        return model.objects.create(**lookup, **values)
    stale = {name: value for name, value in values.items() if getattr(row, name) != value}
    if stale:
        for name, value in stale.items():
            setattr(row, name, value)
        row.save(update_fields=list(stale))
        report.count(report.updated, model)
    return row


@transaction.atomic
def instrument_load(*, data: dict[str, Any]) -> InstrumentLoadReport:
    """Load the VirtueMap instrument (virtues, dilemmas, options, published key) idempotently.

    The published key is stored as round-0 KeyCandidates with provenance "published". A published key is
    retained only when it is first created and no other key is retained for that dilemma×virtue; a re-run
    never touches existing key candidates, so keys superseded by a validation study stay superseded.
    Every ordering is checked as a permutation of A–E before anything is written.
    """
    report = InstrumentLoadReport()
    published_key = {
        dilemma_id: {virtue_id: "".join(validate_ranking(order)) for virtue_id, order in by_virtue.items()}
        for dilemma_id, by_virtue in data["published_key"].items()
    }
    prompt = data.get("llm_prompt_template", {})
    _upsert(
        Instrument,
        report,
        {"slug": data["instrument"]},
        {
            "version": data["version"],
            "source": data["source"],
            "llm_prompt_template": prompt.get("user", ""),
            "llm_prompt_note": prompt.get("note", ""),
            "published_key_provenance": data.get("published_key_provenance", ""),
        },
    )
    for position, virtue in enumerate(data["virtues"], start=1):
        _upsert(
            Virtue,
            report,
            {"id": virtue["id"]},
            {
                "name": virtue["name"],
                "greek_name": virtue["greek"],
                "short_definition": virtue["short_definition"],
                "definition": virtue["definition"],
                "position": position,
            },
        )
    for position, dilemma in enumerate(data["dilemmas"], start=1):
        dilemma_row = _upsert(
            Dilemma,
            report,
            {"id": dilemma["id"]},
            {"title": dilemma["title"], "scenario": dilemma["scenario"], "position": position},
        )
        for letter, text in sorted(dilemma["options"].items()):
            _upsert(Option, report, {"dilemma": dilemma_row, "letter": letter}, {"text": text})
    _load_published_key(published_key, report)
    return report


def _load_published_key(published_key: dict[str, dict[str, str]], report: InstrumentLoadReport) -> None:
    already_retained = set(
        KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED).values_list("dilemma_id", "virtue_id")
    )
    existing_published = set(KeyCandidate.objects.filter(round=0).values_list("dilemma_id", "virtue_id"))
    now = timezone.now()
    for dilemma_id, by_virtue in published_key.items():
        for virtue_id, ordering in by_virtue.items():
            if (dilemma_id, virtue_id) in existing_published:
                continue
            retain = (dilemma_id, virtue_id) not in already_retained
            KeyCandidate.objects.create(
                dilemma_id=dilemma_id,
                virtue_id=virtue_id,
                ordering=ordering,
                round=0,
                provenance=KeyCandidate.Provenance.PUBLISHED,
                status=KeyCandidate.Status.RETAINED if retain else KeyCandidate.Status.SUPERSEDED,
                decided_at=now,
            )
            report.count(report.created, KeyCandidate)


def instrument_load_file(*, path: Path = INSTRUMENT_FIXTURE) -> InstrumentLoadReport:
    with path.open(encoding="utf-8") as handle:
        return instrument_load(data=json.load(handle))


# --- Consent and respondents ------------------------------------------------------------------------------

# Panel IDs are opaque tokens (Prolific's are 24 hex digits); anything else is refused rather than hashed.
PANEL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
DEMOGRAPHIC_FIELDS: dict[str, type[models.TextChoices]] = {
    "age_band": Respondent.AgeBand,
    "gender": Respondent.Gender,
    "country": Respondent.Country,
    "education": Respondent.Education,
    "native_language": Respondent.NativeLanguage,
}


@dataclass(frozen=True)
class PanelArrival:
    """Who sent the respondent: the panel and the respondent's ID there (never stored as is)."""

    panel: str
    panel_id: str


@dataclass(frozen=True)
class ConsentOutcome:
    """The respondent who consented, a fresh API token (shown once, stored only hashed), and whether an
    unfinished respondent with the same panel ID was resumed rather than created."""

    respondent: Respondent
    token: str
    resumed: bool


def panel_arrival_from_params(params: Mapping[str, Any]) -> PanelArrival | None:
    """Return the panel arrival in query parameters (`PROLIFIC_PID`, else a generic `pid`), or None.

    Raises ApplicationError for an ID that is not 1–128 letters, digits, '-' or '_'.
    """
    for name, panel in (("PROLIFIC_PID", Respondent.Panel.PROLIFIC), ("pid", Respondent.Panel.GENERIC)):
        value = params.get(name)
        if value in (None, ""):
            continue
        if not isinstance(value, str) or not PANEL_ID_PATTERN.match(value):
            raise ApplicationError(
                f"{name} must be 1–128 letters, digits, '-' or '_'.", {"field": f"panel.{name}"}, status=400
            )
        return PanelArrival(panel=panel, panel_id=value)
    return None


def panel_id_hash(panel_id: str) -> str:
    """HMAC-SHA256 of a panel ID under `STUDY_PANEL_HMAC_KEY`, as hex. Without the key it cannot be reversed
    or recomputed from a list of IDs."""
    return hmac.new(settings.STUDY_PANEL_HMAC_KEY.encode(), panel_id.encode(), hashlib.sha256).hexdigest()


def token_hash(token: str) -> str:
    # The token is 256 random bits, so a plain SHA-256 is enough: there is nothing to brute-force.
    return hashlib.sha256(token.encode()).hexdigest()


def completion_code_for(*, outcome: str) -> str:
    """The completion code of an outcome: "completed", "no_consent" or "failed_checks"."""
    return getattr(settings, f"STUDY_COMPLETION_CODE_{outcome.upper()}")


def consent_text_install_defaults() -> list[ConsentText]:
    """Create version 1 of each study's consent text where the study has none; return the rows created."""
    created = []
    for study, text in DEFAULT_CONSENT_TEXTS.items():
        if not ConsentText.objects.filter(study=study).exists():
            created.append(ConsentText.objects.create(study=study, is_current=True, **text))
    return created


@transaction.atomic
def respondent_consent(
    *, study: str, consent_version: str, accept: bool, panel: Mapping[str, Any] | None = None
) -> ConsentOutcome:
    """Record consent to the current consent text of `study` and return the respondent with a new token.

    Nothing is stored unless `accept` is true and `consent_version` is the current version. A panel
    arrival is kept only as `panel_id_hash`; a panel ID that already finished this study is refused (409),
    one that started and did not finish resumes the same respondent with a new token.
    """
    arrival = panel_arrival_from_params(panel or {})
    if accept is not True:
        extra = {"completion_code": completion_code_for(outcome="no_consent")} if arrival else {}
        raise ApplicationError("Consent was not given, so nothing was stored.", extra, status=400)
    text = selectors.consent_text_current(study=study)
    if text is None:
        raise ApplicationError(f"The {study} study has no consent text yet.", {}, status=409)
    if consent_version != text.version:
        raise ApplicationError(
            f"Consent version {consent_version!r} is not the current one ({text.version!r}); please read it again.",
            {"current_version": text.version},
            status=409,
        )
    token = secrets.token_urlsafe(32)
    hashed_panel_id = panel_id_hash(arrival.panel_id) if arrival else None
    if hashed_panel_id:
        resumed = _respondent_resume(study=study, hashed_panel_id=hashed_panel_id, token=token)
        if resumed:
            return ConsentOutcome(respondent=resumed, token=token, resumed=True)
    try:
        # A savepoint, so that a twin request with the same panel ID that wins the race turns into a resume.
        with transaction.atomic():
            respondent = Respondent.objects.create(
                study=study,
                consent_text=text,
                consent_version=text.version,
                consent_text_hash=text.text_hash,
                consented_at=timezone.now(),
                panel=arrival.panel if arrival else Respondent.Panel.NONE,
                panel_id_hash=hashed_panel_id,
                token_hash=token_hash(token),
            )
    except IntegrityError:
        resumed = _respondent_resume(study=study, hashed_panel_id=hashed_panel_id, token=token)
        if resumed is None:
            raise
        return ConsentOutcome(respondent=resumed, token=token, resumed=True)
    return ConsentOutcome(respondent=respondent, token=token, resumed=False)


def _respondent_resume(*, study: str, hashed_panel_id: str | None, token: str) -> Respondent | None:
    respondent = Respondent.objects.select_for_update().filter(study=study, panel_id_hash=hashed_panel_id).first()
    if respondent is None:
        return None
    if respondent.is_complete:
        raise ApplicationError("This panel ID has already taken part in this study.", {}, status=409)
    respondent.token_hash = token_hash(token)
    respondent.save(update_fields=["token_hash"])
    return respondent


@transaction.atomic
def respondent_demographics_set(*, respondent: Respondent, answers: Mapping[str, str]) -> Respondent:
    """Store the optional demographic bands; a blank or missing answer means "skipped".

    Only the five band fields are accepted, each from its list of choices; anything else is an
    ApplicationError and nothing is written.
    """
    unknown = sorted(set(answers) - set(DEMOGRAPHIC_FIELDS))
    if unknown:
        raise ApplicationError(f"Unknown demographic question(s): {', '.join(unknown)}.", {"fields": unknown})
    for name, choices in DEMOGRAPHIC_FIELDS.items():
        value = answers.get(name) or ""
        if value and value not in choices.values:
            raise ApplicationError(f"{value!r} is not an answer to {name}.", {"field": name, "choices": choices.values})
        setattr(respondent, name, value)
    respondent.save(update_fields=list(DEMOGRAPHIC_FIELDS))
    return respondent


@transaction.atomic
def respondent_withdraw(*, respondent: Respondent) -> None:
    """Delete the respondent and everything they gave (their rows cascade), and keep every counter true."""
    Respondent.objects.filter(pk=respondent.pk).delete()
