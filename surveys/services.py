"""Business logic of the surveys app: loading the instrument, consent and respondents, validation responses
and promotion, scoring profiles."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from scoring import nearest_profiles_prepared, virtue_profile_from_table
from scoring.integrity import Concern
from scoring.promotion import PromotionOutcome, kemeny_consensus, promotion_decision
from scoring.rankings import OPTIONS, RankingError, validate_ranking
from surveys import integrity, selectors
from surveys.consent_defaults import DEFAULT_CONSENT_TEXTS
from surveys.models import (
    Assignment,
    ConsentText,
    Dilemma,
    Instrument,
    KeyCandidate,
    KeyDecision,
    Option,
    ProfilingSubmission,
    Respondent,
    Study,
    ValidationResponse,
    Virtue,
)
from surveys.selectors import ProfileScoringContext, RetainedKey, profile_scoring_context
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
    """Who sent the respondent: the panel, the respondent's ID there (never stored as is) and, for Prolific, the
    panel's study and session IDs of this visit (empty when the link carried none)."""

    panel: str
    panel_id: str
    study_id: str = ""
    session_id: str = ""

    @property
    def has_session(self) -> bool:
        return bool(self.study_id and self.session_id)


@dataclass(frozen=True)
class ConsentOutcome:
    """The respondent who consented, a fresh API token (shown once, stored only hashed), and whether the same
    panel session's unfinished respondent was resumed rather than created."""

    respondent: Respondent
    token: str
    resumed: bool


def _panel_value(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if value in (None, ""):
        return ""
    if not isinstance(value, str) or not PANEL_ID_PATTERN.match(value):
        raise ApplicationError(
            f"{name} must be 1–128 letters, digits, '-' or '_'.", {"field": f"panel.{name}"}, status=400
        )
    return value


def panel_arrival_from_params(params: Mapping[str, Any]) -> PanelArrival | None:
    """Return the panel arrival in query parameters (`PROLIFIC_PID` with `STUDY_ID` and `SESSION_ID`, else a
    generic `pid`), or None.

    Raises ApplicationError for an ID that is not 1–128 letters, digits, '-' or '_'.
    """
    if prolific_id := _panel_value(params, "PROLIFIC_PID"):
        return PanelArrival(
            panel=Respondent.Panel.PROLIFIC,
            panel_id=prolific_id,
            study_id=_panel_value(params, "STUDY_ID"),
            session_id=_panel_value(params, "SESSION_ID"),
        )
    if generic_id := _panel_value(params, "pid"):
        return PanelArrival(panel=Respondent.Panel.GENERIC, panel_id=generic_id)
    return None


def _keyed_hash(*parts: str) -> str:
    # The separator keeps ("ab", "c") and ("a", "bc") apart.
    message = "\x1e".join(parts).encode()
    return hmac.new(settings.STUDY_PANEL_HMAC_KEY.encode(), message, hashlib.sha256).hexdigest()


def panel_id_hash(panel_id: str) -> str:
    """HMAC-SHA256 of a panel ID under `STUDY_PANEL_HMAC_KEY`, as hex. Without the key it cannot be reversed
    or recomputed from a list of IDs."""
    return _keyed_hash(panel_id)


def panel_session_hash(arrival: PanelArrival) -> str | None:
    """The keyed hash that ties a respondent to one panel session (ID, study and session), or None without one."""
    if not arrival.has_session:
        return None
    return _keyed_hash("session", arrival.panel, arrival.panel_id, arrival.study_id, arrival.session_id)


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


def study_access_check(*, study: str, arrival: PanelArrival | None) -> None:
    """Refuse (403) an arrival the validation study does not admit: with STUDY_ACCESS=panel only a Prolific
    arrival with a session of the study STUDY_PANEL_STUDY_ID; with that set, never a Prolific arrival for another
    study. The other studies admit anyone."""
    if study != Study.VALIDATION:
        return
    expected = settings.STUDY_PANEL_STUDY_ID
    prolific = arrival is not None and arrival.panel == Respondent.Panel.PROLIFIC
    if expected and prolific and arrival.study_id != expected:
        raise ApplicationError("This link belongs to another study.", {"field": "panel.STUDY_ID"}, status=403)
    if settings.STUDY_ACCESS == "panel" and not (prolific and arrival.has_session and arrival.study_id == expected):
        raise ApplicationError(
            "This study is open only to participants who arrive from its panel study, through the panel's link.",
            {"access": "panel"},
            status=403,
        )


@transaction.atomic
def respondent_consent(
    *,
    study: str,
    consent_version: str,
    accept: bool,
    panel: Mapping[str, Any] | None = None,
    suspicion: Sequence[str] = (),
    network_bucket: int | None = None,
) -> ConsentOutcome:
    """Record consent to the current consent text of `study` and return the respondent with a new token.

    Nothing is stored unless `accept` is true, `consent_version` is the current version and the study admits the
    arrival (`study_access_check`). A panel ID is an identifier, not a credential: it is kept only as
    `panel_id_hash`, and only an arrival from the same panel session (Prolific's ID, study and session IDs) resumes
    that respondent with a new token. Anyone else arriving with an ID that already took part gets a respondent of
    their own, answered exactly like a first arrival (nothing reveals that the ID took part) but excluded from N and
    Y (`flagged`, suspicion `panel_id_reused`): one participation per panel ID, and nobody else's token is revoked.
    `suspicion` codes (`Respondent.Suspicion`) are recorded on the respondent (added to earlier ones on a resume);
    a suspicious respondent is otherwise treated like any other. `network_bucket` is the respondent's network as
    `virtuemap_site.abuse.network_bucket` gives it, for the key review.
    """
    unknown = set(suspicion) - set(Respondent.Suspicion.values)
    if unknown:
        raise ValueError(f"unknown suspicion code(s): {sorted(unknown)}")
    arrival = panel_arrival_from_params(panel or {})
    if accept is not True:
        extra = {"completion_code": completion_code_for(outcome="no_consent")} if arrival else {}
        raise ApplicationError("Consent was not given, so nothing was stored.", extra, status=400)
    study_access_check(study=study, arrival=arrival)
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
    fields = {
        "study": study,
        "consent_text": text,
        "consent_version": text.version,
        "consent_text_hash": text.text_hash,
        "panel": arrival.panel if arrival else Respondent.Panel.NONE,
        "token_hash": token_hash(token),
        "network_bucket": network_bucket,
    }
    if arrival is None:
        respondent = Respondent.objects.create(
            **fields, consented_at=timezone.now(), suspicion=_suspicion_text(suspicion)
        )
        return ConsentOutcome(respondent=respondent, token=token, resumed=False)
    for _ in range(2):
        # A savepoint, so that a twin request with the same panel ID that wins the race is looked at again.
        try:
            with transaction.atomic():
                return _panel_respondent_consent(arrival=arrival, fields=fields, token=token, suspicion=suspicion)
        except IntegrityError:
            continue
    raise ApplicationError("Please try again.", {}, status=409)


def _panel_respondent_consent(
    *, arrival: PanelArrival, fields: dict[str, Any], token: str, suspicion: Sequence[str]
) -> ConsentOutcome:
    hashed_id, session = panel_id_hash(arrival.panel_id), panel_session_hash(arrival)
    earlier = Respondent.objects.select_for_update().filter(study=fields["study"], panel_id_hash=hashed_id).first()
    if earlier is not None and session is not None and earlier.panel_session_hash == session:
        # The same panel session (another device, a lost cookie): the same respondent, finished or not.
        earlier.token_hash = fields["token_hash"]
        earlier.suspicion = _suspicion_text([*filter(None, earlier.suspicion.split(",")), *suspicion])
        earlier.save(update_fields=["token_hash", "suspicion"])
        return ConsentOutcome(respondent=earlier, token=token, resumed=True)
    if earlier is not None:
        respondent = Respondent.objects.create(
            **fields,
            consented_at=timezone.now(),
            flagged=True,
            suspicion=_suspicion_text([*suspicion, Respondent.Suspicion.PANEL_ID_REUSED]),
        )
        return ConsentOutcome(respondent=respondent, token=token, resumed=False)
    respondent = Respondent.objects.create(
        **fields,
        consented_at=timezone.now(),
        panel_id_hash=hashed_id,
        panel_session_hash=session,
        suspicion=_suspicion_text(suspicion),
    )
    return ConsentOutcome(respondent=respondent, token=token, resumed=False)


def _suspicion_text(codes: Iterable[str]) -> str:
    """Suspicion codes as stored: unique, in the order of `Respondent.Suspicion`, comma-separated."""
    chosen = set(codes)
    return ",".join(code for code in Respondent.Suspicion.values if code in chosen)


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
def respondent_withdraw(*, respondent: Respondent) -> list[int]:
    """Delete the respondent and everything they gave (their rows cascade), and recompute N and Y of every
    candidate they answered, so the counters equal the stored responses again. Returns those candidates' ids.

    A decision already taken stands (its evidence is in its KeyDecision); one the rule took automatically and the
    remaining counts no longer carry is flagged for review (`surveys.integrity`).
    """
    locked = Respondent.objects.select_for_update().filter(pk=respondent.pk).first()
    if locked is None:
        return []
    candidate_ids = sorted(set(locked.validation_responses.values_list("candidate_id", flat=True)))
    # Lock before deleting, in id order like every multi-candidate write, so no submission interleaves.
    list(KeyCandidate.objects.select_for_update().filter(pk__in=candidate_ids).order_by("pk").values_list("pk"))
    locked.delete()
    _key_counts_recompute(candidate_ids=candidate_ids)
    return candidate_ids


# --- The validation study: opening rounds, assignment, responses, promotion ---------------------------------


@dataclass(frozen=True)
class SubmitOutcome:
    """A stored response; `created` is False when the same respondent had already answered the candidate
    (the stored response is returned and nothing is counted twice)."""

    response: ValidationResponse
    created: bool


def proposed_orderings(*, path: Path = INSTRUMENT_FIXTURE) -> dict[tuple[str, str], str]:
    """The orderings a new validation study starts from: (dilemma id, virtue id) → ordering.

    The fixture's `proposed_orderings` if it has them; otherwise its `published_key`, which is the
    authors' proposed ordering as published. Either way it is the file, not the database, so a study
    never starts from keys that an earlier study replaced.
    """
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    source = data.get("proposed_orderings") or data["published_key"]
    return {
        (dilemma_id, virtue_id): "".join(validate_ranking(order))
        for dilemma_id, by_virtue in source.items()
        for virtue_id, order in by_virtue.items()
    }


@transaction.atomic
def validation_open(
    *, pairs: list[tuple[str, str]] | None = None, orderings: Mapping[tuple[str, str], str] | None = None
) -> list[KeyCandidate]:
    """Open a validation round for each dilemma×virtue pair (all 35 when `pairs` is None) from the proposed
    orderings, as new OPEN candidates with provenance PROPOSED; return the candidates created.

    A pair that already has an open (or held) candidate is left alone, so re-running changes nothing. The new round
    number follows the pair's last one (round 1 after the published round 0). Raises ApplicationError for
    a pair with no proposed ordering.
    """
    orderings = orderings if orderings is not None else proposed_orderings()
    pairs = sorted(orderings) if pairs is None else pairs
    unknown = [pair for pair in pairs if pair not in orderings]
    if unknown:
        raise ApplicationError(f"No proposed ordering for {', '.join('×'.join(pair) for pair in unknown)}.")
    created = []
    for dilemma_id, virtue_id in pairs:
        existing = KeyCandidate.objects.select_for_update().filter(dilemma_id=dilemma_id, virtue_id=virtue_id)
        if existing.filter(status__in=[KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD]).exists():
            continue
        last_round = existing.aggregate(last=models.Max("round"))["last"]
        candidate = KeyCandidate.objects.create(
            dilemma_id=dilemma_id,
            virtue_id=virtue_id,
            ordering=orderings[(dilemma_id, virtue_id)],
            round=(last_round or 0) + 1,
            provenance=KeyCandidate.Provenance.PROPOSED,
            status=KeyCandidate.Status.OPEN,
        )
        _decision_record(candidate=candidate, action=KeyDecision.Action.OPENED, reason="validation study opened")
        created.append(candidate)
    return created


def attention_check_positions(*, items: int, checks: int) -> set[int]:
    """Positions (1-based, among items + checks) of the attention checks, spread evenly and never first."""
    total = items + checks
    return {round(k * total / (checks + 1)) + 1 for k in range(1, checks + 1)} if checks else set()


@transaction.atomic
def validation_next_assignment(*, respondent: Respondent, rng: random.Random | None = None) -> Assignment | None:
    """Return the item this respondent should answer now, serving a new one if needed; None when done.

    An unanswered assignment is returned again (a reload or a returning respondent resumes). Otherwise the
    next position is an attention check (at `attention_check_positions`) or the open candidate with the
    fewest evaluations plus in-flight assignments, among dilemma×virtue pairs this respondent has not had,
    preferring dilemmas they have seen least, ties at random. When the respondent has answered every item,
    or nothing is left to serve them, they are marked complete and None is returned.
    """
    rng = rng or random.Random()
    respondent = Respondent.objects.select_for_update().get(pk=respondent.pk)
    if respondent.is_complete:
        return None
    now = timezone.now()
    expiry = timedelta(minutes=settings.STUDY_ASSIGNMENT_EXPIRY_MINUTES)
    pending = respondent.assignments.filter(answered_at__isnull=True).select_related("candidate").first()
    if pending is not None:
        if pending.kind == Assignment.Kind.ATTENTION_CHECK or pending.candidate.status == KeyCandidate.Status.OPEN:
            if pending.expires_at <= now:
                pending.expires_at = now + expiry
                pending.save(update_fields=["expires_at"])
            return pending
        # Decided while they were away: serve something still open in its place.
        pending.delete()
    items, checks = settings.STUDY_ITEMS_PER_RESPONDENT, settings.STUDY_ATTENTION_CHECKS
    position = respondent.assignments.count() + 1
    if position > items + checks:
        return _respondent_complete(respondent)
    if position in attention_check_positions(items=items, checks=checks):
        dilemma_id = rng.choice(list(Dilemma.objects.values_list("id", flat=True)))
        displayed = list(OPTIONS)
        rng.shuffle(displayed)
        return Assignment.objects.create(
            respondent=respondent,
            kind=Assignment.Kind.ATTENTION_CHECK,
            position=position,
            dilemma_id=dilemma_id,
            displayed_order="".join(displayed),
            # Never the letter already on top, so that pressing "next" without reading fails the check.
            check_letter=rng.choice(displayed[1:]),
            served_at=now,
            expires_at=now + expiry,
        )
    candidate = _least_evaluated_candidate(respondent=respondent, now=now, rng=rng)
    if candidate is None:
        return _respondent_complete(respondent) if respondent.assignments.exists() else None
    return Assignment.objects.create(
        respondent=respondent,
        kind=Assignment.Kind.VALIDATION,
        position=position,
        candidate=candidate,
        dilemma_id=candidate.dilemma_id,
        virtue_id=candidate.virtue_id,
        displayed_order=candidate.ordering,
        served_at=now,
        expires_at=now + expiry,
    )


def _least_evaluated_candidate(*, respondent: Respondent, now: datetime, rng: random.Random) -> KeyCandidate | None:
    had = list(respondent.assignments.filter(kind=Assignment.Kind.VALIDATION).values_list("dilemma_id", "virtue_id"))
    seen_pairs = set(had)
    dilemma_seen = Counter(dilemma_id for dilemma_id, _ in had)
    candidates = [
        candidate
        for candidate in selectors.open_candidates_with_load(now=now)
        if (candidate.dilemma_id, candidate.virtue_id) not in seen_pairs
    ]
    if not candidates:
        return None
    return min(
        candidates,
        key=lambda c: (c.n_evaluations + c.in_flight, dilemma_seen.get(c.dilemma_id, 0), rng.random()),
    )


def _respondent_complete(respondent: Respondent) -> None:
    respondent.completed_at = timezone.now()
    respondent.save(update_fields=["completed_at"])
    return None


def respondent_outcome_code(*, respondent: Respondent) -> str:
    """The completion code a finished respondent receives. Following Prolific's rule, the failed-checks code
    only after two failed attention checks; a single failure is flagged but still completes."""
    if respondent.attention_checks_failed >= 2:
        return completion_code_for(outcome="failed_checks")
    return completion_code_for(outcome="completed")


def _parse_ordering(ordering: Any) -> str:
    try:
        return "".join(validate_ranking(ordering))
    except RankingError as error:
        raise ApplicationError(f"Invalid ordering: {error}.", {"field": "ordering"}) from None


@transaction.atomic
def validation_response_submit(
    *,
    respondent: Respondent,
    candidate_id: int,
    confirmed: bool,
    ordering: Any = None,
    time_on_item_ms: int | None = None,
) -> SubmitOutcome:
    """Store a respondent's confirmation or correction of a candidate, count it, and apply the promotion rule,
    all in one transaction.

    The candidate must have been assigned to this respondent. A correction must be a permutation of A–E;
    one identical to the candidate counts as a confirmation. The candidate row is locked while N and Y are
    updated, so concurrent submissions never lose a count. The response counts while the candidate is open
    and the respondent is not flagged. When the rule decides, the candidate is retained (superseding the
    pair's previous key) or rejected (opening the next round from the Kemeny consensus of the corrections), unless
    the evidence looks manufactured: then it is held for a researcher (`surveys.integrity`).
    A repeat submission of the same answer returns the stored response, unchanged and not recounted; a different
    answer to the same candidate is refused (409): the first answer stands. Bad input raises ApplicationError and
    writes nothing.
    """
    if not isinstance(confirmed, bool):
        raise ApplicationError("'confirmed' must be true or false.", {"field": "confirmed"})
    corrected = None if confirmed and ordering is None else _parse_ordering(ordering)
    respondent = Respondent.objects.select_for_update().filter(pk=respondent.pk).first()
    if respondent is None:
        raise ApplicationError("This respondent has withdrawn.", {}, status=403)
    assignment = respondent.assignments.filter(kind=Assignment.Kind.VALIDATION, candidate_id=candidate_id).first()
    if assignment is None:
        raise ApplicationError(
            f"Candidate {candidate_id} was not assigned to this respondent.", {"field": "candidate"}, status=403
        )
    # The lock serialises every submission for this candidate: N, Y and the decision see each other's writes.
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate_id)
    if confirmed and corrected is not None and corrected != candidate.ordering:
        raise ApplicationError(
            "A confirmation cannot come with a different ordering; send confirmed: false to correct.",
            {"field": "ordering"},
        )
    final = corrected or candidate.ordering
    existing = ValidationResponse.objects.filter(respondent=respondent, candidate=candidate).first()
    if existing is not None:
        if existing.ordering != final:
            raise _first_answer_stands(ordering=existing.ordering, confirmed=existing.confirmed)
        return SubmitOutcome(response=existing, created=False)
    now = timezone.now()
    counted = candidate.status == KeyCandidate.Status.OPEN
    response = ValidationResponse.objects.create(
        respondent=respondent,
        candidate=candidate,
        confirmed=final == candidate.ordering,
        ordering=final,
        displayed_order=assignment.displayed_order,
        time_on_item_ms=_time_on_item(assignment=assignment, now=now, reported_ms=time_on_item_ms),
        counted=counted,
        submitted_at=now,
    )
    assignment.answered_at = now
    assignment.save(update_fields=["answered_at"])
    if counted and not respondent.flagged:
        candidate.n_evaluations += 1
        candidate.n_confirmations += int(response.confirmed)
        candidate.save(update_fields=["n_evaluations", "n_confirmations", "updated_at"])
        decision = promotion_decision(
            candidate.n_evaluations,
            candidate.n_confirmations,
            settings.KEY_MIN_EVALUATIONS,
            settings.KEY_MIN_CONFIRMATION,
        )
        concerns = integrity.decision_concerns(candidate=candidate, outcome=decision.outcome)
        if concerns:
            _candidate_hold(candidate=candidate, outcome=decision.outcome, concerns=concerns)
        elif decision.outcome is PromotionOutcome.RETAINED:
            _candidate_retain(candidate=candidate, reason="promotion rule: N > minimum and q ≥ threshold")
        elif decision.outcome is PromotionOutcome.REJECTED:
            _candidate_reject(candidate=candidate, reason="promotion rule: the threshold is out of reach")
    return SubmitOutcome(response=response, created=True)


def _first_answer_stands(**stored: Any) -> ApplicationError:
    """A repeat that contradicts the stored answer: refused, and the stored one is what counts."""
    if "ordering" in stored:
        stored["ordering"] = list(stored["ordering"])
    return ApplicationError(
        "This item was already answered differently; the first answer stands.", {"stored": stored}, status=409
    )


def _time_on_item(*, assignment: Assignment, now: datetime, reported_ms: int | None) -> int:
    """Time from serving the item to the answer. A client-reported time (the API) is used when it is
    plausible, since the server's clock also counts network and page-load time."""
    served_ms = int((now - assignment.served_at).total_seconds() * 1000)
    if isinstance(reported_ms, int) and 0 <= reported_ms <= served_ms:
        return reported_ms
    return served_ms


@transaction.atomic
def attention_check_submit(*, respondent: Respondent, assignment_id: int, ordering: Any) -> Assignment:
    """Record the answer to an instructed-response attention check and return the check.

    It is passed when the instructed response is first. A failure flags the respondent: their responses
    stay stored but no longer count, and N and Y of those candidates are recomputed at once. A repeat of the
    same answer returns the stored one; a different answer is refused (409): the first answer stands.
    """
    answer = _parse_ordering(ordering)
    respondent = Respondent.objects.select_for_update().filter(pk=respondent.pk).first()
    if respondent is None:
        raise ApplicationError("This respondent has withdrawn.", {}, status=403)
    check = respondent.assignments.filter(pk=assignment_id, kind=Assignment.Kind.ATTENTION_CHECK).first()
    if check is None:
        raise ApplicationError(
            f"Attention check {assignment_id} was not assigned to this respondent.",
            {"field": "attention_check"},
            status=403,
        )
    if check.answered_at is not None:
        if check.check_answer != answer:
            raise _first_answer_stands(ordering=check.check_answer)
        return check
    check.check_answer = answer
    check.check_passed = answer[0] == check.check_letter
    check.answered_at = timezone.now()
    check.save(update_fields=["check_answer", "check_passed", "answered_at"])
    if not check.check_passed:
        respondent.attention_checks_failed += 1
        newly_flagged = not respondent.flagged
        respondent.flagged = True
        respondent.save(update_fields=["attention_checks_failed", "flagged"])
        if newly_flagged:
            candidate_ids = sorted(set(respondent.validation_responses.values_list("candidate_id", flat=True)))
            list(KeyCandidate.objects.select_for_update().filter(pk__in=candidate_ids).order_by("pk").values("pk"))
            _key_counts_recompute(candidate_ids=candidate_ids)
    return check


def _key_counts_recompute(*, candidate_ids: list[int]) -> None:
    """Set N and Y of these (already locked) candidates to the counts of their counting responses, and flag for
    review every automatic decision among them that the new counts no longer carry."""
    counts = selectors.key_counts_from_responses(candidate_ids=candidate_ids)
    for candidate_id in candidate_ids:
        n, y = counts.get(candidate_id, (0, 0))
        KeyCandidate.objects.filter(pk=candidate_id).update(
            n_evaluations=n, n_confirmations=y, updated_at=timezone.now()
        )
    for candidate, reason in integrity.decisions_gone_stale(candidate_ids=candidate_ids):
        candidate.needs_review = True
        candidate.review_reasons = [{"code": "evidence_changed", "message": reason}]
        candidate.save(update_fields=["needs_review", "review_reasons", "updated_at"])
        _decision_record(candidate=candidate, action=KeyDecision.Action.FLAGGED, reason=reason)


def _decision_record(
    *,
    candidate: KeyCandidate,
    action: str,
    reason: str,
    user: Any = None,
    related: KeyCandidate | None = None,
    concerns: Sequence[Concern] = (),
) -> KeyDecision:
    evidence = selectors.key_candidate_evidence(candidate=candidate)
    return KeyDecision.objects.create(
        candidate=candidate,
        action=action,
        automatic=user is None,
        decided_by=user,
        decided_by_username=user.get_username() if user is not None else "",
        reason=reason,
        n_evaluations=candidate.n_evaluations,
        n_confirmations=candidate.n_confirmations,
        confirmation_rate=candidate.confirmation_rate,
        wilson_low=evidence.wilson[0] if evidence.wilson else None,
        wilson_high=evidence.wilson[1] if evidence.wilson else None,
        n_corrections=len(evidence.corrections),
        agreement_tau=evidence.agreement_tau,
        related_candidate=related,
        concerns=[vars(concern) for concern in concerns],
    )


def _review_clear(candidate: KeyCandidate) -> None:
    # A researcher's decision, or the rule's on sound evidence, settles whatever review was pending.
    candidate.needs_review = False
    candidate.review_reasons = []


def _candidate_hold(*, candidate: KeyCandidate, outcome: PromotionOutcome, concerns: Sequence[Concern]) -> None:
    """The rule would decide `outcome`, but the evidence looks manufactured: hold the candidate for a researcher.

    A held candidate is served to nobody and counts no further answers; its reasons are on it and in the audit trail.
    """
    candidate.status = KeyCandidate.Status.HELD
    candidate.needs_review = True
    candidate.review_reasons = [{"code": concern.code, "message": concern.message} for concern in concerns]
    candidate.save(update_fields=["status", "needs_review", "review_reasons", "updated_at"])
    verb = "retain" if outcome is PromotionOutcome.RETAINED else "reject"
    reason = f"held for review: the rule would {verb} it, but " + "; ".join(c.message for c in concerns)
    _decision_record(candidate=candidate, action=KeyDecision.Action.HELD, reason=reason, concerns=concerns)


def _candidate_retain(*, candidate: KeyCandidate, reason: str, user: Any = None) -> None:
    now = timezone.now()
    previous = list(
        KeyCandidate.objects.select_for_update()
        .filter(dilemma_id=candidate.dilemma_id, virtue_id=candidate.virtue_id, status=KeyCandidate.Status.RETAINED)
        .exclude(pk=candidate.pk)
    )
    for old in previous:
        old.status = KeyCandidate.Status.SUPERSEDED
        old.save(update_fields=["status", "updated_at"])
        _decision_record(
            candidate=old, action=KeyDecision.Action.SUPERSEDED, reason=f"superseded by {candidate}", related=candidate
        )
    candidate.status = KeyCandidate.Status.RETAINED
    candidate.decided_at = now
    _review_clear(candidate)
    candidate.save(update_fields=["status", "decided_at", "needs_review", "review_reasons", "updated_at"])
    _decision_record(candidate=candidate, action=KeyDecision.Action.RETAINED, reason=reason, user=user)


def _candidate_reject(*, candidate: KeyCandidate, reason: str, user: Any = None, open_next: bool = True) -> None:
    """Reject the candidate; if `open_next`, open the next round from the Kemeny consensus of its corrections
    (none when there are no corrections: there is nothing to build a consensus from)."""
    was_open = candidate.status in (KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD)
    candidate.status = KeyCandidate.Status.REJECTED
    candidate.decided_at = timezone.now()
    _review_clear(candidate)
    candidate.save(update_fields=["status", "decided_at", "needs_review", "review_reasons", "updated_at"])
    successor = None
    consensus = kemeny_consensus(selectors.key_candidate_evidence(candidate=candidate).corrections)
    if open_next and was_open and consensus is not None:
        successor = KeyCandidate.objects.create(
            dilemma_id=candidate.dilemma_id,
            virtue_id=candidate.virtue_id,
            ordering="".join(consensus),
            round=candidate.round + 1,
            provenance=KeyCandidate.Provenance.CONSENSUS,
            status=KeyCandidate.Status.OPEN,
        )
        _decision_record(
            candidate=successor,
            action=KeyDecision.Action.OPENED,
            reason=f"Kemeny consensus of the corrections to {candidate}",
        )
    _decision_record(
        candidate=candidate, action=KeyDecision.Action.REJECTED, reason=reason, user=user, related=successor
    )


# --- Admin review --------------------------------------------------------------------------------------------


def _reason_required(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ApplicationError("A reason is required.", {"field": "reason"})
    return reason


@transaction.atomic
def key_candidate_promote(*, candidate: KeyCandidate, user: Any, reason: str) -> KeyCandidate:
    """Retain a candidate by a researcher's decision, superseding the pair's current key, with the reason
    recorded. An open candidate of the same pair stays open (it may yet supersede this one)."""
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status == KeyCandidate.Status.RETAINED:
        raise ApplicationError(f"{candidate} is already retained.")
    _candidate_retain(candidate=candidate, reason=reason, user=user)
    return candidate


@transaction.atomic
def key_candidate_reject(*, candidate: KeyCandidate, user: Any, reason: str) -> KeyCandidate:
    """Reject an open, held or retained candidate by a researcher's decision. An open or held one is treated as
    the rule treats it (the next round opens from the consensus of its corrections); a retained one leaves the pair
    without a key until another is retained."""
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status not in (KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD, KeyCandidate.Status.RETAINED):
        raise ApplicationError(
            f"Only an open, held or retained candidate can be rejected; {candidate} is {candidate.status}."
        )
    _candidate_reject(candidate=candidate, reason=reason, user=user)
    return candidate


@transaction.atomic
def key_candidate_reopen(*, candidate: KeyCandidate, user: Any, reason: str) -> KeyCandidate:
    """Put a decided candidate's ordering back to respondents as a new round with fresh counts.

    The candidate itself keeps its status and evidence (history is never rewritten); an open or held round of the
    same pair (a held candidate being reopened included) is closed as rejected without a successor. Returns the new
    open candidate.
    """
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status == KeyCandidate.Status.OPEN:
        raise ApplicationError(f"{candidate} is already open.")
    rounds = KeyCandidate.objects.select_for_update().filter(
        dilemma_id=candidate.dilemma_id, virtue_id=candidate.virtue_id
    )
    if candidate.needs_review and candidate.status != KeyCandidate.Status.HELD:
        _review_clear(candidate)
        candidate.save(update_fields=["needs_review", "review_reasons", "updated_at"])
    for open_candidate in rounds.filter(status__in=[KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD]):
        _candidate_reject(
            candidate=open_candidate, reason=f"closed by reopening {candidate}: {reason}", user=user, open_next=False
        )
    reopened = KeyCandidate.objects.create(
        dilemma_id=candidate.dilemma_id,
        virtue_id=candidate.virtue_id,
        ordering=candidate.ordering,
        round=rounds.aggregate(last=models.Max("round"))["last"] + 1,
        provenance=candidate.provenance,
        status=KeyCandidate.Status.OPEN,
    )
    _decision_record(
        candidate=candidate, action=KeyDecision.Action.REOPENED, reason=reason, user=user, related=reopened
    )
    _decision_record(
        candidate=reopened, action=KeyDecision.Action.OPENED, reason=f"reopened {candidate}: {reason}", user=user
    )
    return reopened


@transaction.atomic
def key_candidate_review_keep(*, candidate: KeyCandidate, user: Any, reason: str) -> KeyCandidate:
    """Settle the review of a retained or rejected candidate flagged after its evidence changed: the decision
    stands, with the researcher's reason in the audit trail. A held candidate needs a decision instead (promote,
    reject or reopen)."""
    reason = _reason_required(reason)
    candidate = KeyCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status == KeyCandidate.Status.HELD:
        raise ApplicationError(f"{candidate} is held: promote, reject or reopen it.")
    if not candidate.needs_review:
        raise ApplicationError(f"{candidate} awaits no review.")
    _review_clear(candidate)
    candidate.save(update_fields=["needs_review", "review_reasons", "updated_at"])
    _decision_record(candidate=candidate, action=KeyDecision.Action.REVIEWED, reason=reason, user=user)
    return candidate


# --- Profiles -------------------------------------------------------------------------------------------

NEAREST_MODEL_COUNT = 3


class RankingProblem:
    """Machine-readable names of what is wrong with a submitted set of rankings (``extra.errors[].problem``)."""

    EMPTY_BODY = "empty_body"
    NOT_AN_OBJECT = "not_an_object"
    UNKNOWN_DILEMMA = "unknown_dilemma"
    NOT_A_LIST = "not_a_list"
    NOT_FIVE = "not_five"
    WRONG_LETTERS = "wrong_letters"
    REPEATS = "repeats"


@dataclass(frozen=True)
class NearestModel:
    slug: str
    name: str
    similarity: float


@dataclass(frozen=True)
class ProfileResult:
    """A scored questionnaire: `scoring.VirtueProfile` plus the keys it used and the nearest published models.

    answered and skipped list dilemma ids in instrument order; skipped is every dilemma without a ranking.
    """

    scores: dict[str, float | None]
    per_dilemma: dict[str, dict[str, float]]
    answered: tuple[str, ...]
    skipped: tuple[str, ...]
    keys: tuple[RetainedKey, ...]
    nearest_models: tuple[NearestModel, ...]


def profile_score(*, rankings: object, context: ProfileScoringContext | None = None) -> ProfileResult:
    """Score one questionnaire against the retained keys and find the nearest published model profiles.

    ``rankings`` maps dilemma id → a ranking (a list of the five letters A–E, most preferable first) or None
    for a skipped dilemma; dilemmas left out are skipped too. Writes nothing. Raises `ApplicationError`
    naming every dilemma at fault and its problem (``extra["errors"]``: dilemma, problem, message) when the
    mapping is missing or empty-bodied, names an unknown dilemma, or holds a ranking that is not a
    permutation of A–E. A virtue with no answered dilemma that has a key for it scores None, never 0.
    """
    context = context or profile_scoring_context()
    checked = _checked_rankings(rankings, context)
    profile = virtue_profile_from_table(
        {dilemma: checked.get(dilemma) for dilemma in context.dilemmas}, context.alignments, context.virtues
    )
    order = {dilemma: position for position, dilemma in enumerate(context.dilemmas)}
    answered = set(profile.answered)
    nearest = nearest_profiles_prepared(profile.scores, context.models, k=NEAREST_MODEL_COUNT)
    return ProfileResult(
        scores=profile.scores,
        per_dilemma={dilemma: profile.per_dilemma[dilemma] for dilemma in sorted(profile.per_dilemma, key=order.get)},
        answered=tuple(sorted(profile.answered, key=order.get)),
        skipped=tuple(sorted(profile.skipped, key=order.get)),
        # Every key of an answered dilemma enters its scores (the context's keys are the instrument's virtues').
        keys=tuple(key for key in context.keys if key.dilemma in answered),
        nearest_models=tuple(
            NearestModel(slug=slug, name=context.model_names[slug], similarity=similarity)
            for slug, similarity in nearest
        ),
    )


def _checked_rankings(rankings: object, context: ProfileScoringContext) -> dict[str, tuple[str, ...] | None]:
    if rankings is None:
        raise _ranking_errors([(None, RankingProblem.EMPTY_BODY, 'the body needs "rankings": {"D1": [...], ...}')])
    if not isinstance(rankings, Mapping):
        raise _ranking_errors(
            [(None, RankingProblem.NOT_AN_OBJECT, '"rankings" must be an object of dilemma id → ranking')]
        )
    dilemmas, table = context.dilemmas, context.alignments
    checked: dict[str, tuple[str, ...] | None] = {}
    errors: list[tuple[str | None, str, str]] = []
    for dilemma, ranking in rankings.items():
        if dilemma not in dilemmas:
            errors.append(
                (
                    dilemma,
                    RankingProblem.UNKNOWN_DILEMMA,
                    f"unknown dilemma {dilemma!r}; dilemmas are {', '.join(dilemmas)}",
                )
            )
        elif ranking is None:
            checked[dilemma] = None
        elif type(ranking) is list and _is_listed(ranking, table[dilemma]):
            # The table holds every permutation of A–E: found there, the ranking is valid.
            checked[dilemma] = tuple(ranking)
        else:
            try:
                checked[dilemma] = validate_ranking(ranking)
            except RankingError as error:
                errors.append((dilemma, _ranking_problem(ranking), str(error)))
    if errors:
        raise _ranking_errors(errors)
    return checked


def _is_listed(ranking: list[object], entries: Mapping[tuple[str, ...], object]) -> bool:
    try:
        return tuple(ranking) in entries
    except TypeError:  # an item that cannot be a dictionary key (a list, an object): not a letter
        return False


def _ranking_problem(ranking: object) -> str:
    # The same checks, in the same order, as scoring.validate_ranking, which words the message.
    if not isinstance(ranking, (list, tuple)):
        return RankingProblem.NOT_A_LIST
    if len(ranking) != len(OPTIONS):
        return RankingProblem.NOT_FIVE
    if any(item not in OPTIONS for item in ranking):
        return RankingProblem.WRONG_LETTERS
    return RankingProblem.REPEATS


def _ranking_errors(errors: list[tuple[str | None, str, str]]) -> ApplicationError:
    described = [f"{dilemma}: {message}" if dilemma else message for dilemma, _, message in errors]
    return ApplicationError(
        "; ".join(described),
        {"errors": [{"dilemma": d, "problem": problem, "message": m} for d, problem, m in errors]},
    )


@transaction.atomic
def profiling_submission_store(*, respondent: Respondent, rankings: Mapping[str, str | None]) -> ProfilingSubmission:
    """Store (or replace) the profiling answers of a respondent who consented to research use.

    ``rankings`` maps dilemma id → ranking letters ("CBADE") or None for a skipped dilemma. The scores and the
    keys used are stored with them. Refuses (ApplicationError) a respondent of another study, since only
    consent to the profiling study's text covers these answers, and rankings that `profile_score` refuses.
    """
    if respondent.study != Study.PROFILING:
        raise ApplicationError("Only consent to the profiling questionnaire covers storing its answers.", status=403)
    result = profile_score(rankings={d: (list(r) if r else None) for d, r in rankings.items()})
    submission, _ = ProfilingSubmission.objects.update_or_create(
        respondent=respondent,
        defaults={
            "rankings": {dilemma: (ranking or None) for dilemma, ranking in rankings.items()},
            "scores": result.scores,
            "keys_used": [key.id for key in result.keys],
        },
    )
    return submission
