"""Writes of the respondent flow: panel arrivals, consent, demographics, completion codes, withdrawal."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from instruments import registry
from surveys import references, selectors
from surveys.demographics import DEMOGRAPHIC_CHOICES, demographic_values
from surveys.models import ConsentText, Respondent, Withdrawal
from virtuemap_site.errors import ApplicationError
from virtuemap_site.request_guards import ascii_int

# --- Consent and respondents ------------------------------------------------------------------------------

# Panel IDs are opaque tokens (Prolific's are 24 hex digits); anything else is refused rather than hashed.
PANEL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


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
    """The respondent who consented, a fresh API token and a fresh participant reference (each shown once, stored
    only hashed), and whether the same panel session's respondent was resumed rather than created."""

    respondent: Respondent
    token: str
    resumed: bool
    reference: str


@dataclass(frozen=True)
class WithdrawalReport:
    """What a withdrawal deleted: the study, how many records of each kind ("answers": 12), whether the respondent
    came from a panel (who must then return their submission there), and what the instrument's hook reports."""

    study: str
    deleted: dict[str, int]
    panel: str
    changed: list[Any]

    @property
    def total(self) -> int:
        return sum(self.deleted.values())


def _panel_value(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if value in (None, ""):
        return ""
    if not isinstance(value, str) or not PANEL_ID_PATTERN.match(value):
        raise ApplicationError(
            _("%(name)s must be 1–128 letters, digits, '-' or '_'.") % {"name": name},
            {"field": f"panel.{name}"},
            status=400,
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
    """The completion code of an outcome: "completed", "no_consent", "failed_checks" or "study_closed"."""
    return getattr(settings, f"STUDY_COMPLETION_CODE_{outcome.upper()}")


def study_closed_return(*, params: Mapping[str, Any] | None = None, respondent: Respondent | None = None) -> dict:
    """For a panel participant whom a study has nothing for (closed in their language, or nothing left to serve them):
    the study-closed code (`STUDY_COMPLETION_CODE_STUDY_CLOSED`) and the panel's return link, as
    {"completion_code", "redirect_url"}; {} for anyone else. A panel arrival is read from the link's ``params``
    (unreadable ones are none), or is a ``respondent`` who came from a panel."""
    try:
        panel = respondent.panel if respondent is not None else panel_arrival_from_params(params or {})
    except ApplicationError:
        panel = None
    if not panel:
        return {}
    code = completion_code_for(outcome="study_closed")
    return {"completion_code": code, "redirect_url": panel_return_url(code=code)}


def panel_return_url(*, code: str) -> str:
    """Where a panel participant hands in ``code``: `STUDY_PANEL_REDIRECT_URL` with the code filled in."""
    return settings.STUDY_PANEL_REDIRECT_URL.format(code=code)


@transaction.atomic
def consent_text_install_defaults() -> list[ConsentText]:
    """Create the first version of each registered study's consent text where the study has none in its language
    (the version its instrument declares, with the study's details from the settings STUDY_RESEARCHER, …, so that
    its hash covers them); where the current text is an earlier built-in wording nobody edited (its hash is in the
    declared "supersedes"), add the declared wording as the next version and make it current. Texts people consented
    to stay as they are. Return the rows created."""
    details = {name: getattr(settings, f"STUDY_{name.upper()}") for name in ConsentText.DETAIL_FIELDS}
    created = []
    for slug, study in registry.studies().items():
        for declared in (study.consent, *study.consent_translations) if study.consent else ():
            text = _consent_text_install(slug, declared, details)
            if text is not None:
                created.append(text)
    return created


def _consent_text_install(slug: str, declared: Mapping[str, Any], details: dict[str, str]) -> ConsentText | None:
    """The declared wording of one study in one language, created where needed (see above); None when not."""
    wording = {name: value for name, value in declared.items() if name != "supersedes"}
    texts = ConsentText.objects.select_for_update().filter(
        study=slug, language=wording.get("language", selectors.DEFAULT_LANGUAGE)
    )
    current = texts.filter(is_current=True).first()
    if not texts.exists():
        return ConsentText.objects.create(study=slug, is_current=True, **details, **wording)
    if current is not None and current.text_hash in declared.get("supersedes", ()):
        current.is_current = False
        current.save(update_fields=["is_current"])
        wording["version"] = _next_version(texts.values_list("version", flat=True))
        return ConsentText.objects.create(study=slug, is_current=True, **details, **wording)
    return None


def _next_version(versions: Iterable[str]) -> str:
    """One more than the highest numeric version ("1" → "2")."""
    return str(max((number for version in versions if (number := ascii_int(version)) is not None), default=0) + 1)


def study_access_check(*, study: str, arrival: PanelArrival | None) -> None:
    """Refuse (403) an arrival a panel-gated study (VirtueMap's key validation) does not admit: with
    STUDY_ACCESS=panel only a Prolific arrival with a session of the study STUDY_PANEL_STUDY_ID; with that set, never
    a Prolific arrival for another study. The other studies admit anyone."""
    if not registry.study(study).panel_gated:
        return
    expected = settings.STUDY_PANEL_STUDY_ID
    prolific = arrival is not None and arrival.panel == Respondent.Panel.PROLIFIC
    if expected and prolific and arrival.study_id != expected:
        raise ApplicationError(_("This link belongs to another study."), {"field": "panel.STUDY_ID"}, status=403)
    if settings.STUDY_ACCESS == "panel" and not (prolific and arrival.has_session and arrival.study_id == expected):
        raise ApplicationError(
            _("This study is open only to participants who arrive from its panel study, through the panel's link."),
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
    language: str | None = None,
    current_text: ConsentText | None = None,
) -> ConsentOutcome:
    """Record consent to the current consent text of `study` in `language` (default: the request's, else English;
    `selectors.consent_text_current`) and return the respondent with a new token. `current_text` is that text as
    the caller read it in this request (the consent page does, to show it), which saves reading it again.

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
        raise ApplicationError(_("Consent was not given, so nothing was stored."), extra, status=400)
    study_access_check(study=study, arrival=arrival)
    if current_text is not None and current_text.study != study:
        raise ValueError(f"the consent text given is {current_text.study!r}'s, not {study!r}'s")
    text = current_text or selectors.consent_text_current(study=study, language=language)
    if text is None:
        raise ApplicationError(_("The %(study)s study has no consent text yet.") % {"study": study}, {}, status=409)
    if consent_version != text.version:
        raise ApplicationError(
            _("Consent version %(given)s is not the current one (%(current)s); please read it again.")
            % {"given": repr(consent_version), "current": repr(text.version)},
            {"current_version": text.version},
            status=409,
        )
    token, reference = secrets.token_urlsafe(32), references.reference_new()
    fields = {
        "study": study,
        "consent_text": text,
        "consent_version": text.version,
        "language": text.language,
        "consent_text_hash": text.text_hash,
        "panel": arrival.panel if arrival else Respondent.Panel.NONE,
        "token_hash": token_hash(token),
        "reference_hash": references.reference_hash(reference),
        "network_bucket": network_bucket,
    }
    if arrival is None:
        respondent = Respondent.objects.create(
            **fields, consented_at=timezone.now(), suspicion=_suspicion_text(suspicion)
        )
        return ConsentOutcome(respondent=respondent, token=token, resumed=False, reference=reference)
    for _attempt in range(2):
        # A savepoint, so that a twin request with the same panel ID that wins the race is looked at again.
        try:
            with transaction.atomic():
                respondent, resumed = _panel_respondent_consent(arrival=arrival, fields=fields, suspicion=suspicion)
                return ConsentOutcome(respondent=respondent, token=token, resumed=resumed, reference=reference)
        except IntegrityError:
            continue
    raise ApplicationError(_("Please try again."), {}, status=409)


def _panel_respondent_consent(
    *, arrival: PanelArrival, fields: dict[str, Any], suspicion: Sequence[str]
) -> tuple[Respondent, bool]:
    hashed_id, session = panel_id_hash(arrival.panel_id), panel_session_hash(arrival)
    earlier = Respondent.objects.select_for_update().filter(study=fields["study"], panel_id_hash=hashed_id).first()
    if earlier is not None and session is not None and earlier.panel_session_hash == session:
        # The same panel session (another device, a lost cookie): the same respondent, finished or not. The new
        # token and reference replace the old ones, since only their hashes were kept.
        earlier.token_hash = fields["token_hash"]
        earlier.reference_hash = fields["reference_hash"]
        earlier.suspicion = _suspicion_text([*filter(None, earlier.suspicion.split(",")), *suspicion])
        earlier.save(update_fields=["token_hash", "reference_hash", "suspicion"])
        return earlier, True
    if earlier is not None:
        respondent = Respondent.objects.create(
            **fields,
            consented_at=timezone.now(),
            flagged=True,
            suspicion=_suspicion_text([*suspicion, Respondent.Suspicion.PANEL_ID_REUSED]),
        )
        return respondent, False
    respondent = Respondent.objects.create(
        **fields,
        consented_at=timezone.now(),
        panel_id_hash=hashed_id,
        panel_session_hash=session,
        suspicion=_suspicion_text(suspicion),
    )
    return respondent, False


def respondent_finished_for_arrival(*, study: str, params: Mapping[str, Any]) -> Respondent | None:
    """The finished respondent of ``study`` that this panel arrival (query parameters with Prolific's ID, study and
    session IDs) belongs to, or None: someone coming back from the panel's link after finishing sees their
    completion code again instead of a consent form. A panel ID alone is no credential, so only the same panel
    session matches, as for resuming (`respondent_consent`); unreadable parameters match nothing."""
    try:
        arrival = panel_arrival_from_params(params)
    except ApplicationError:
        return None
    session = panel_session_hash(arrival) if arrival is not None else None
    if session is None:
        return None
    return (
        Respondent.objects.filter(
            study=study, panel_session_hash=session, panel_id_hash=panel_id_hash(arrival.panel_id)
        )
        .exclude(completed_at=None)
        .first()
    )


def _suspicion_text(codes: Iterable[str]) -> str:
    """Suspicion codes as stored: unique, in the order of `Respondent.Suspicion`, comma-separated."""
    chosen = set(codes)
    return ",".join(code for code in Respondent.Suspicion.values if code in chosen)


@transaction.atomic
def respondent_demographics_set(*, respondent: Respondent, answers: Mapping[str, str]) -> Respondent:
    """Store the optional demographic answers; a blank or missing answer means "skipped".

    Only the five questions are accepted, each from its list of choices (`surveys.demographics`: bands, ISO country
    and language codes); anything else is an ApplicationError and nothing is written.
    """
    unknown = sorted(set(answers) - set(DEMOGRAPHIC_CHOICES))
    if unknown:
        raise ApplicationError(
            _("Unknown demographic question(s): %(names)s.") % {"names": ", ".join(unknown)}, {"fields": unknown}
        )
    for name in DEMOGRAPHIC_CHOICES:
        value = answers.get(name) or ""
        if value and value not in demographic_values(name):
            raise ApplicationError(
                _("%(value)s is not an answer to %(name)s.") % {"value": repr(value), "name": name}, {"field": name}
            )
        setattr(respondent, name, value)
    respondent.save(update_fields=list(DEMOGRAPHIC_CHOICES))
    return respondent


@transaction.atomic
def respondent_withdraw(*, respondent: Respondent) -> WithdrawalReport | None:
    """Delete the respondent and everything they gave (their rows cascade), through the hook of the instrument their
    study belongs to, which does what the deletion alone cannot (VirtueMap recomputes N and Y of the key candidates
    they answered). Returns what was deleted, counted per kind of record (`deleted_counts`); None for a respondent
    already gone.
    """
    locked = Respondent.objects.select_for_update().filter(pk=respondent.pk).first()
    if locked is None:
        return None
    deleted: dict[str, int] = {}

    def delete() -> None:
        _deleted, per_model = locked.delete()
        deleted.update(per_model)

    plugin = registry.instrument(registry.study(locked.study).instrument)
    # The tally keeps only the study and the day, so a dashboard can count withdrawals whose data is gone.
    Withdrawal.objects.create(study=locked.study, withdrawn_on=timezone.localdate())
    changed = plugin.on_withdraw(locked, delete=delete)
    return WithdrawalReport(study=locked.study, deleted=deleted_counts(deleted), panel=locked.panel, changed=changed)


# The kinds of record a withdrawal deletes, in words a person reads in their language (Django's verbose names of these
# models are not translated, and giving them translated ones would change every app's migrations for one sentence).
RECORD_KINDS: dict[str, Callable[[int], str]] = {
    "surveys.Respondent": lambda count: ngettext(
        "consent record and optional details", "consent records and optional details", count
    ),
    "surveys.QuestionnaireSession": lambda count: ngettext("questionnaire session", "questionnaire sessions", count),
    "surveys.QuestionnaireAnswer": lambda count: ngettext("questionnaire answer", "questionnaire answers", count),
    "virtuemap.Assignment": lambda count: ngettext("assignment", "assignments", count),
    "virtuemap.ValidationResponse": lambda count: ngettext("validation response", "validation responses", count),
    "virtuemap.ProfilingSubmission": lambda count: ngettext("profiling submission", "profiling submissions", count),
}


def deleted_counts(per_model: Mapping[str, int]) -> dict[str, int]:
    """Django's deletion counts ("surveys.QuestionnaireAnswer": 12) in words a person reads, in the active language
    ("questionnaire answers": 12), the consent record first, kinds with nothing deleted left out. A model not in
    `RECORD_KINDS` is named by its verbose name."""
    from django.apps import apps

    counts: dict[str, int] = {}
    for label, count in sorted(per_model.items(), key=lambda item: item[0] != "surveys.Respondent"):
        if not count:
            continue
        if label in RECORD_KINDS:
            name = RECORD_KINDS[label](count)
        else:
            meta = apps.get_model(label)._meta
            name = str(meta.verbose_name if count == 1 else meta.verbose_name_plural)
        counts[name] = counts.get(name, 0) + count
    return counts


def respondent_withdraw_by_reference(*, reference: str) -> WithdrawalReport | None:
    """Withdraw the respondent whose participant reference this is (any spelling `references.reference_normalise`
    accepts); None, deleting nothing, when the text is no reference or no respondent holds it."""
    respondent = selectors.respondent_by_reference(reference=reference)
    if respondent is None:
        return None
    return respondent_withdraw(respondent=respondent)


def respondent_complete(respondent: Respondent) -> None:
    """Mark the respondent complete, now. Raises Respondent.DoesNotExist, changing nothing, when they have withdrawn
    meanwhile (a caller that holds no lock on them can meet that)."""
    completed_at = timezone.now()
    if not Respondent.objects.filter(pk=respondent.pk).update(completed_at=completed_at):
        raise Respondent.DoesNotExist(f"respondent {respondent.pk} has withdrawn")
    respondent.completed_at = completed_at
    return None


def respondent_outcome_code(*, respondent: Respondent) -> str:
    """The completion code a finished respondent receives. Following Prolific's rule, the failed-checks code
    only after two failed attention checks; a single failure is flagged but still completes."""
    if respondent.attention_checks_failed >= 2:
        return completion_code_for(outcome="failed_checks")
    return completion_code_for(outcome="completed")
