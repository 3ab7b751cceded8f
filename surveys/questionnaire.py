"""The shared questionnaire: consent, a sequence drawn once per respondent, one answer per position, completion.

Any study whose instrument declares a `instruments.base.Questionnaire` runs through here; the instrument says what
an item shows and how an answer is read, nothing else. Answers are taken in sequence order and stored exactly once
per position: a repeated submission (refresh, back button, double click) returns the stored answer and changes
nothing, a different one is refused with 409 (the first answer stands). A respondent who goes Back to an answered
position may change it until the questionnaire is complete (`questionnaire_answer_correct`): the same row takes the
new answer and keeps the replaced one, so no answer is ever lost or duplicated; after completion every answer is final.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from instruments import registry
from instruments.base import AnswerRejected, Instrument, Questionnaire, items_edition
from surveys.models import QuestionnaireAnswer, QuestionnaireSession, Respondent
from surveys.selectors import respondent_by_id
from surveys.web import respondent_session_key
from virtuemap_site.errors import ApplicationError


@dataclass(frozen=True)
class AnswerOutcome:
    answer: QuestionnaireAnswer
    created: bool


def questionnaire_for(study: str) -> Questionnaire:
    """The questionnaire of a registered ``study``; raises `registry.UnknownInstrument` when the study is not
    registered or has no shared questionnaire."""
    declared = registry.study(study)
    found = registry.instrument(declared.instrument).questionnaire(study)
    if found is None:
        raise registry.UnknownInstrument(f"study {study!r} has pages of its own, not the shared questionnaire")
    return found


# --- selectors ----------------------------------------------------------------------------------------------


def questionnaire_session_get(*, respondent: Respondent | None) -> QuestionnaireSession | None:
    if respondent is None:
        return None
    return QuestionnaireSession.objects.filter(respondent=respondent).first()


def questionnaire_next_position(*, session: QuestionnaireSession) -> int | None:
    """The first position without an answer, or None when every position is answered."""
    answered = set(session.answers.values_list("position", flat=True))
    return next((p for p in range(1, len(session.sequence) + 1) if p not in answered), None)


def questionnaire_answer_at(*, session: QuestionnaireSession, position: int) -> QuestionnaireAnswer | None:
    return session.answers.filter(position=position).first()


def questionnaire_answers(*, session: QuestionnaireSession) -> tuple[list[dict], list[dict]]:
    """The answered items and their answers, in position order."""
    rows = list(session.answers.order_by("position").values_list("item", "value"))
    return [item for item, _ in rows], [value for _, value in rows]


# --- services -----------------------------------------------------------------------------------------------


@transaction.atomic
def person_questionnaire_summary(instrument: Instrument, request: Any) -> Mapping[str, Any] | None:
    """This browser's answers to ``instrument``'s shared questionnaires as a result summary
    (`Questionnaire.subject_summary`), for the person's own cross-instrument page; None when they have answered none.
    Answers are read where they are: stored only for a respondent who consented; nothing is stored here."""
    for study in instrument.studies:
        questionnaire = instrument.questionnaire(study.slug)
        respondent_id = request.session.get(respondent_session_key(study.slug))
        if questionnaire is None or not respondent_id:
            continue
        respondent = respondent_by_id(respondent_id=respondent_id, study=study.slug)
        session = questionnaire_session_get(respondent=respondent)
        if session is not None:
            items, answers = questionnaire_answers(session=session)
            if answers:
                return questionnaire.subject_summary(items, answers)
    return None


def questionnaire_session_start(
    *, respondent: Respondent, options: Mapping[str, Any] | None = None, seed: int | None = None
) -> QuestionnaireSession:
    """Return the respondent's session, creating it on the first call with the sequence the instrument draws from a
    stored seed (``options``: the design the link asked for, as `Questionnaire.design_options` read it). A
    respondent who already has a session keeps it unchanged."""
    questionnaire = questionnaire_for(respondent.study)
    Respondent.objects.select_for_update().filter(pk=respondent.pk).first()
    existing = QuestionnaireSession.objects.filter(respondent=respondent).first()
    if existing is not None:
        return existing
    if not questionnaire.is_ready():
        raise ApplicationError(_("The questionnaire is not ready yet; please come back later."), status=409)
    seed = secrets.randbits(62) if seed is None else seed
    try:
        sequence, design = questionnaire.sequence(seed=seed, options=options or {})
    except AnswerRejected as problem:
        raise ApplicationError(str(problem), {"options": dict(options or {})}, status=400) from problem
    return QuestionnaireSession.objects.create(
        respondent=respondent,
        instrument=registry.study(respondent.study).instrument,
        seed=seed,
        design=design,
        sequence=sequence,
    )


def questionnaire_edition(*, session: QuestionnaireSession) -> str:
    """The edition (language) whose items the session shows, for the whole study: the instrument's edition of the
    language the respondent consented in (`instruments.base.items_edition`). Switching the interface's language
    mid-study changes the interface only; every answer records this edition."""
    return items_edition(registry.instrument(session.instrument).identity, session.respondent.language)


def _session_locked(session: QuestionnaireSession, position: Any) -> QuestionnaireSession:
    """The session, locked for the rest of the transaction, once ``position`` is known to be one of its positions."""
    locked = QuestionnaireSession.objects.select_for_update().get(pk=session.pk)
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= len(locked.sequence):
        raise ApplicationError(
            _("There is no question %(position)s in this questionnaire.") % {"position": repr(position)},
            {"position": position},
        )
    return locked


def _answer_read(session: QuestionnaireSession, item: Mapping[str, Any], position: int, data: Mapping[str, str]):
    try:
        return questionnaire_for(session.respondent.study).read_answer(item, data)
    except AnswerRejected as problem:
        raise ApplicationError(str(problem), {"position": position}) from problem


def plausible_time_on_item(time_on_item_ms: Any, *, shown_after: datetime, now: datetime) -> int | None:
    """``time_on_item_ms`` as the page reported it (`surveys.web.elapsed_ms`), kept only when it is plausible: a whole
    number from 0 to the time since the item could first have been shown (``shown_after``, by the server's clock);
    None otherwise, and for none reported."""
    if not isinstance(time_on_item_ms, int) or isinstance(time_on_item_ms, bool):
        return None
    return time_on_item_ms if 0 <= time_on_item_ms <= (now - shown_after).total_seconds() * 1000 else None


@transaction.atomic
def questionnaire_answer_submit(
    *, session: QuestionnaireSession, position: Any, data: Mapping[str, str], time_on_item_ms: int | None = None
) -> AnswerOutcome:
    """Store the answer the instrument reads from ``data`` at ``position`` (1-based), exactly once.

    An answered position returns the stored answer with created=False and changes nothing (a different answer to it
    is refused with 409: the first answer stands). Only the next unanswered position can be answered (409
    otherwise). The last answer completes the session and the respondent. A position that does not exist or an
    answer the instrument cannot read is an ApplicationError (400) and stores nothing. ``time_on_item_ms`` (the page
    script's) is stored when plausible (`plausible_time_on_item`: no longer than since the answer before), else None.
    The answer records the edition its item was shown in (`questionnaire_edition`).
    """
    locked = _session_locked(session, position)
    item = locked.sequence[position - 1]
    value = _answer_read(locked, item, position, data)
    stored = locked.answers.filter(position=position).first()
    if stored is not None:
        if stored.value != value:
            raise ApplicationError(
                _("Question %(position)s was already answered differently; the first answer stands.")
                % {"position": position},
                {"position": position, "stored": stored.value},
                status=409,
            )
        return AnswerOutcome(answer=stored, created=False)
    answered_at = dict(locked.answers.values_list("position", "answered_at"))
    expected = next((p for p in range(1, len(locked.sequence) + 1) if p not in answered_at), None)
    if position != expected:
        raise ApplicationError(
            _("Question %(position)s is not the next one; question %(next)s is.")
            % {"position": position, "next": expected},
            {"next": expected},
            status=409,
        )
    now = timezone.now()
    # The item could not be shown before the answer to the one before it was stored (or, the first, before consent).
    shown_after = max(answered_at.values(), default=locked.created_at)
    try:
        with transaction.atomic():
            answer = QuestionnaireAnswer.objects.create(
                session=locked,
                position=position,
                item=item,
                value=value,
                time_on_item_ms=plausible_time_on_item(time_on_item_ms, shown_after=shown_after, now=now),
                language=questionnaire_edition(session=locked),
                answered_at=now,
            )
    except IntegrityError:
        # The session lock serialises answers, so only a concurrent twin on another connection can get here.
        return AnswerOutcome(answer=locked.answers.get(position=position), created=False)
    if position == len(locked.sequence):
        locked.completed_at = now
        locked.save(update_fields=["completed_at"])
        Respondent.objects.filter(pk=locked.respondent_id, completed_at__isnull=True).update(completed_at=now)
    return AnswerOutcome(answer=answer, created=True)


@transaction.atomic
def questionnaire_answer_correct(
    *, session: QuestionnaireSession, position: Any, data: Mapping[str, str], time_on_item_ms: int | None = None
) -> AnswerOutcome:
    """Change the stored answer at an answered ``position`` to the one the instrument reads from ``data`` (the
    respondent went Back), while the session is not complete.

    The answer's row takes the new value, time and time on item, and appends the replaced value with its time to
    ``replaced``: one answer per position, none lost. The same answer again changes nothing (created=False). A
    complete session (its answers are final), a position not answered yet, or one that does not exist is refused
    (409, 409, 400), as is an answer the instrument cannot read (400); nothing is changed then.
    """
    locked = _session_locked(session, position)
    if locked.is_complete:
        raise ApplicationError(
            _("The questionnaire is complete: its answers are final."), {"position": position}, status=409
        )
    stored = locked.answers.filter(position=position).first()
    if stored is None:
        raise ApplicationError(
            _("Question %(position)s has no answer to change yet.") % {"position": position},
            {"position": position},
            status=409,
        )
    value = _answer_read(locked, stored.item, position, data)
    if value == stored.value:
        return AnswerOutcome(answer=stored, created=False)
    earlier = {
        "value": stored.value,
        "answered_at": stored.answered_at.isoformat(),
        "time_on_item_ms": stored.time_on_item_ms,
    }
    stored.replaced = [*stored.replaced, earlier]
    stored.value = value
    stored.answered_at = timezone.now()
    stored.time_on_item_ms = plausible_time_on_item(
        time_on_item_ms, shown_after=locked.created_at, now=stored.answered_at
    )
    stored.save(update_fields=["replaced", "value", "answered_at", "time_on_item_ms"])
    return AnswerOutcome(answer=stored, created=True)
