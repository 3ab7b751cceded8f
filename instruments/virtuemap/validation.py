"""The key-validation study: opening rounds, serving items (and attention checks), storing confirm-or-correct
answers exactly once; each answer then goes to the promotion rule (`keys`)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from instruments.virtuemap import integrity, selectors
from instruments.virtuemap.keys import (
    candidate_hold,
    candidate_reject,
    candidate_retain,
    key_counts_recompute,
    key_decision_record,
)
from instruments.virtuemap.models import (
    Assignment,
    KeyCandidate,
    KeyDecision,
    ValidationResponse,
)
from instruments.virtuemap.ranking_errors import ranking_problem_message
from instruments.virtuemap.services import INSTRUMENT_FIXTURE
from instruments.virtuemap.studies import VALIDATION
from scoring.promotion import PromotionOutcome, promotion_decision
from scoring.rankings import OPTIONS, RankingError, validate_ranking
from surveys.models import Respondent
from surveys.selectors import consent_text_current
from surveys.services import respondent_complete
from virtuemap_site.errors import ApplicationError
from virtuemap_site.prepared_queries import PreparedQuery, PreparedUpdate


@dataclass(frozen=True)
class SubmitOutcome:
    """A stored response; `created` is False when the same respondent had already answered the candidate
    (the stored response is returned and nothing is counted twice). `answered`: the respondent's items answered."""

    response: ValidationResponse
    created: bool
    # How many items the respondent has answered now (their progress).
    answered: int = 0


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


def edition_seed_orderings(*, language: str) -> dict[tuple[str, str], tuple[str, str]]:
    """Where an edition's validation starts: (dilemma id, virtue id) → (ordering, provenance).

    The English edition starts from the proposed orderings (`proposed_orderings`). A translated edition starts from
    the English edition's retained key, since that is the ordering its answers are scored with until it retains its
    own (provenance ENGLISH_KEY); a pair without an English key starts from the proposed ordering.
    """
    seeds = {pair: (ordering, KeyCandidate.Provenance.PROPOSED) for pair, ordering in proposed_orderings().items()}
    if language != selectors.ENGLISH:
        for dilemma_id, by_virtue in selectors.retained_key_map(language=selectors.ENGLISH).items():
            for virtue_id, ordering in by_virtue.items():
                seeds[(dilemma_id, virtue_id)] = ("".join(ordering), KeyCandidate.Provenance.ENGLISH_KEY)
    return seeds


@transaction.atomic
def validation_open(
    *,
    pairs: list[tuple[str, str]] | None = None,
    orderings: Mapping[tuple[str, str], str] | None = None,
    language: str = selectors.ENGLISH,
) -> list[KeyCandidate]:
    """Open a validation round of the edition in `language` (en by default; zh and zh-hans name the Chinese one) for
    each dilemma×virtue pair (all 35 when `pairs` is None), as new OPEN candidates; return the candidates created.

    The orderings are `orderings` (provenance PROPOSED) when given, else the edition's seeds
    (`edition_seed_orderings`: the proposed orderings in English, the English retained keys in a translation). A
    pair that already has an open (or held) candidate in the edition is left alone, so re-running changes nothing;
    other editions are never touched. The new round number follows the pair's last one in the edition (round 1
    after the published round 0 in English; round 1 first in a translation). Raises ApplicationError for a language
    not in settings.LANGUAGES and for a pair with no ordering.
    """
    edition = selectors.key_edition(language, default=None)
    if edition is None:
        editions = ", ".join(selectors.key_editions())
        raise ApplicationError(f"Unknown language {language!r}: the editions are {editions}.", {"field": "language"})
    if orderings is not None:
        seeds = {pair: (ordering, KeyCandidate.Provenance.PROPOSED) for pair, ordering in orderings.items()}
    else:
        seeds = edition_seed_orderings(language=edition)
    pairs = sorted(seeds) if pairs is None else pairs
    unknown = [pair for pair in pairs if pair not in seeds]
    if unknown:
        raise ApplicationError(f"No proposed ordering for {', '.join('×'.join(pair) for pair in unknown)}.")
    reason = "validation study opened" + ("" if edition == selectors.ENGLISH else f" in {edition}")
    created = []
    for dilemma_id, virtue_id in pairs:
        existing = KeyCandidate.objects.select_for_update().filter(
            dilemma_id=dilemma_id, virtue_id=virtue_id, language=edition
        )
        if existing.filter(status__in=[KeyCandidate.Status.OPEN, KeyCandidate.Status.HELD]).exists():
            continue
        last_round = existing.aggregate(last=models.Max("round"))["last"]
        ordering, provenance = seeds[(dilemma_id, virtue_id)]
        candidate = KeyCandidate.objects.create(
            dilemma_id=dilemma_id,
            virtue_id=virtue_id,
            language=edition,
            ordering=ordering,
            round=(last_round or 0) + 1,
            provenance=provenance,
            status=KeyCandidate.Status.OPEN,
        )
        key_decision_record(candidate=candidate, action=KeyDecision.Action.OPENED, reason=reason)
        created.append(candidate)
    return created


def edition_of_arrival(*, consent_language: str | None = None) -> str:
    """The edition a visitor of this request would validate: that of the consent text they would agree to (in their
    language when the study has one, else English), which becomes their `Respondent.language`. A caller that has
    read that text already gives its language as ``consent_language``, and the text is not read again."""
    if consent_language is None:
        text = consent_text_current(study=VALIDATION)
        consent_language = text.language if text else None
    return selectors.key_edition(consent_language)


def assignment_edition(assignment: Assignment) -> str:
    """The edition an item is shown in, whatever the interface's language: the respondent's (the language they
    consented in), which is its candidate's (`selectors.open_candidates_for` serves only that edition's), so that the
    answer counts for the key of the edition the person read."""
    return selectors.key_edition(assignment.respondent.language)


def attention_check_positions(*, items: int, checks: int) -> set[int]:
    """Positions (1-based, among items + checks) of the attention checks, spread evenly and never first."""
    total = items + checks
    return {round(k * total / (checks + 1)) + 1 for k in range(1, checks + 1)} if checks else set()


def validation_next_assignment(*, respondent: Respondent, rng: random.Random | None = None) -> Assignment | None:
    """Return the item this respondent should answer now, serving a new one if needed; None when done.

    An unanswered assignment is returned again (a reload or a returning respondent resumes). Otherwise the
    next position is an attention check (at `attention_check_positions`) or the open candidate of the respondent's
    edition (the language they consented in, `Respondent.language`) with the fewest evaluations plus in-flight
    assignments, among dilemma×virtue pairs this respondent has not had,
    preferring dilemmas they have seen least, ties at random. When the respondent has answered every item,
    or nothing is left to serve them, they are marked complete and None is returned.

    ``respondent.completed_at`` is brought up to date; otherwise as `validation_serve`, which a page that has only
    the respondent's id calls instead.
    """
    served, assignment = validation_serve(respondent_id=respondent.pk, rng=rng)
    respondent.completed_at = served.completed_at
    return assignment


def validation_serve(*, respondent_id: Any, rng: random.Random | None = None) -> tuple[Respondent, Assignment | None]:
    """The validation respondent with this id, fresh, and the item they should answer now
    (`validation_next_assignment`), from the respondent's id alone: the respondent is read once, with its counts.

    Serving takes no lock and opens no transaction: each statement commits on its own, and the database's constraints
    settle a race with another of the respondent's requests, after which the serve reads the respondent again
    (`SERVE_ATTEMPTS` reads at most). Two serves at once want the same position: the unique (respondent, position)
    constraint refuses the second insert, which reads again and shows the item the first one served. A withdrawal
    meanwhile makes the insert fail on its foreign key (its check waits for the withdrawal's lock on the respondent,
    and the withdrawal does not see, so never waits for, the uncommitted row), and the read again finds no
    respondent. A decided or expired item is removed or renewed only while unanswered, and an answer meanwhile is read
    again. Called inside a transaction, the insert runs in a savepoint, so a lost race rolls back nothing of the
    caller's; the foreign key is then checked at the caller's commit.

    The assignment comes with its candidate, its dilemma and virtue (from `selectors.instrument_content()`, shared:
    read only), its respondent and `answered_before`: how many items the respondent had answered. Raises
    Respondent.DoesNotExist for a respondent who has withdrawn. Costs three queries at most (four when an expired
    assignment is served again): the respondent with its counts, the pending item or the open candidates, and the
    new assignment.
    """
    rng = rng or random.Random()
    for attempt in range(1, SERVE_ATTEMPTS + 1):
        respondent = _respondent_with_counts_read(respondent_pk=respondent_id)
        try:
            assignment = _next_assignment(respondent, rng=rng)
            break
        except _ServeRaced:
            if attempt == SERVE_ATTEMPTS:
                raise
    if assignment is not None:
        assignment.answered_before = respondent.answered
        _attach_content(assignment)
    return respondent, assignment


# Each read again follows a change another request committed (an item served, answered or removed, a withdrawal), and
# the read after it sees that change: the second read settles any one race, the third allows for two in a row.
SERVE_ATTEMPTS = 3


class _ServeRaced(Exception):
    """Another of the respondent's requests changed their items (or withdrew them) between the serve's read and its
    write; the write changed nothing, and the serve reads again."""


def _attach_content(assignment: Assignment) -> None:
    """Give the assignment the in-memory dilemma and virtue, so that showing it reads no item text from the
    database (each carries every edition's translations)."""
    content = selectors.instrument_content()
    dilemma = content.dilemma(assignment.dilemma_id)
    if dilemma is not None:
        assignment.dilemma = dilemma
    if assignment.virtue_id is not None and (virtue := content.virtue(assignment.virtue_id)) is not None:
        assignment.virtue = virtue


def _respondent_with_counts_read(*, respondent_pk: Any) -> Respondent:
    """The validation respondent with `assigned` and `answered` (their assignments, and those answered) and
    `pending_id` (their unanswered one, or None), in one query, which sees them all as of one moment. Raises
    Respondent.DoesNotExist when there is none (withdrawn)."""
    found = _RESPONDENT_WITH_COUNTS.run(respondent=respondent_pk)
    if not found:
        raise Respondent.DoesNotExist(f"no validation respondent {respondent_pk}")
    return found[0]


def _respondent_with_counts(respondent: Any) -> models.QuerySet[Respondent]:
    """The query of `_respondent_with_counts_read`, prepared once per process (`_RESPONDENT_WITH_COUNTS`): resolving
    and compiling its three subqueries cost more Python than running the query does."""
    assignments = Assignment.objects.filter(respondent=OuterRef("pk")).order_by().values("respondent")
    count = assignments.annotate(count=models.Count("pk")).values("count")
    pending = Assignment.objects.filter(respondent=OuterRef("pk"), answered_at__isnull=True).order_by("position")
    return (
        Respondent.objects.filter(study=VALIDATION, pk=respondent)
        .order_by()  # one row: the model's order would only add a sort
        .annotate(
            assigned=Coalesce(Subquery(count), 0),
            answered=Coalesce(Subquery(count.filter(answered_at__isnull=False)), 0),
            pending_id=Subquery(pending.values("pk")[:1]),
        )
    )


_RESPONDENT_WITH_COUNTS = PreparedQuery(_respondent_with_counts, respondent=Respondent._meta.pk)


def _next_assignment(respondent: Respondent, *, rng: random.Random) -> Assignment | None:
    """The item to serve the respondent, as read by `_respondent_with_counts_read`; raises _ServeRaced when another
    request changed their items since that read."""
    if respondent.is_complete:
        return None
    now = timezone.now()
    expiry = timedelta(minutes=settings.STUDY_ASSIGNMENT_EXPIRY_MINUTES)
    assigned = respondent.assigned
    if respondent.pending_id is not None:
        pending = _pending_read(respondent.pending_id)
        if pending is None or pending.answered_at is not None:
            raise _ServeRaced  # removed or answered since the read
        pending.respondent = respondent
        if pending.kind == Assignment.Kind.ATTENTION_CHECK or pending.candidate.status == KeyCandidate.Status.OPEN:
            if pending.expires_at <= now:
                pending.expires_at = now + expiry
                if not _while_unanswered(pending).update(expires_at=pending.expires_at):
                    raise _ServeRaced
            return pending
        # Decided while they were away: serve something still open in its place.
        if not _while_unanswered(pending).delete()[0]:
            raise _ServeRaced
        assigned -= 1
    # Nothing is pending now, so every item assigned is answered.
    if selectors.every_item_answered(assigned):
        return respondent_complete(respondent)
    position = assigned + 1
    items, checks = settings.STUDY_ITEMS_PER_RESPONDENT, settings.STUDY_ATTENTION_CHECKS
    if position in attention_check_positions(items=items, checks=checks):
        dilemma = rng.choice(selectors.instrument_content().dilemmas)
        displayed = list(OPTIONS)
        rng.shuffle(displayed)
        return _assignment_insert(
            respondent=respondent,
            kind=Assignment.Kind.ATTENTION_CHECK,
            position=position,
            dilemma=dilemma,
            displayed_order="".join(displayed),
            # Never the letter already on top, so that pressing "next" without reading fails the check.
            check_letter=rng.choice(displayed[1:]),
            served_at=now,
            expires_at=now + expiry,
        )
    candidate = _least_evaluated_candidate(respondent=respondent, now=now, rng=rng)
    if candidate is None:
        return respondent_complete(respondent) if assigned else None
    return _assignment_insert(
        respondent=respondent,
        kind=Assignment.Kind.VALIDATION,
        position=position,
        candidate_id=candidate.pk,
        dilemma_id=candidate.dilemma_id,
        virtue_id=candidate.virtue_id,
        displayed_order=candidate.ordering,
        served_at=now,
        expires_at=now + expiry,
    )


def _pending_read(pk: int) -> Assignment | None:
    """The respondent's pending assignment, with its candidate, as the serve's read named it; None when removed."""
    return Assignment.objects.select_related("candidate").filter(pk=pk).first()


def _while_unanswered(assignment: Assignment) -> models.QuerySet[Assignment]:
    """The assignment's row while it is unanswered: a serve renews or removes a pending item only through it, so an
    answer committed since the serve read the item leaves the row as it is (the write counts 0 rows)."""
    return Assignment.objects.filter(pk=assignment.pk, answered_at__isnull=True)


def _assignment_insert(**fields: Any) -> Assignment:
    """A new assignment, one insert committed on its own (in a savepoint inside a caller's transaction); raises
    _ServeRaced when the database refuses it because another request served that position first, or the respondent
    withdrew (the foreign key)."""
    try:
        if transaction.get_connection().in_atomic_block:
            with transaction.atomic():
                return Assignment.objects.create(**fields)
        return Assignment.objects.create(**fields)
    except IntegrityError as refused:
        raise _ServeRaced from refused


def _least_evaluated_candidate(*, respondent: Respondent, now: datetime, rng: random.Random) -> Any | None:
    """The row (`selectors.open_candidates_for`) of the candidate to serve, or None when none is open to them."""
    candidates = selectors.open_candidates_for(respondent=respondent, now=now)
    if not candidates:
        return None
    return min(
        candidates,
        key=lambda c: (c.n_evaluations + c.in_flight, c.dilemma_seen, rng.random()),
    )


def _parse_ordering(ordering: Any) -> str:
    try:
        return "".join(validate_ranking(ordering))
    except RankingError as error:
        problem = ranking_problem_message(ordering) or str(error)
        raise ApplicationError(
            _("Invalid ordering: %(problem)s.") % {"problem": problem}, {"field": "ordering"}
        ) from None


@transaction.atomic
def validation_response_submit(
    *,
    respondent: Respondent,
    candidate_id: int,
    confirmed: bool,
    ordering: Any = None,
    time_on_item_ms: int | None = None,
    presentation: str = ValidationResponse.Presentation.API,
) -> SubmitOutcome:
    """Store a respondent's confirmation or correction of a candidate, count it, and apply the promotion rule,
    all in one transaction.

    The candidate must have been assigned to this respondent. A correction must be a permutation of A–E;
    one identical to the candidate counts as a confirmation. The candidate row is locked while N and Y are
    updated, so concurrent submissions never lose a count. The response counts while the candidate is open
    and the respondent is not flagged. When the rule decides, the candidate is retained (superseding the
    pair's previous key) or rejected (opening the next round from the Kemeny consensus of the corrections), unless
    the evidence looks manufactured: then it is held for a researcher (`instruments.virtuemap.integrity`).
    A repeat submission of the same answer returns the stored response, unchanged and not recounted; a different
    answer to the same candidate is refused (409): the first answer stands. Bad input raises ApplicationError and
    writes nothing. `presentation` (a `ValidationResponse.Presentation`) records how the item was shown, and the
    response records which clock measured its time (`_time_on_item`). An answer the rule does not decide costs
    four queries: the locked rows, the response, the assignment and the counts.
    """
    if not isinstance(confirmed, bool):
        raise ApplicationError(_("'confirmed' must be true or false."), {"field": "confirmed"})
    corrected = None if confirmed and ordering is None else _parse_ordering(ordering)
    assignment = _assignment_locked(respondent_pk=respondent.pk, candidate_id=candidate_id)
    if assignment is None:
        if not Respondent.objects.filter(pk=respondent.pk).exists():
            raise ApplicationError(_("This respondent has withdrawn."), {}, status=403)
        raise ApplicationError(
            _("Candidate %(candidate)s was not assigned to this respondent.") % {"candidate": candidate_id},
            {"field": "candidate"},
            status=403,
        )
    candidate = assignment.candidate
    if confirmed and corrected is not None and corrected != candidate.ordering:
        raise ApplicationError(
            _("A confirmation cannot come with a different ordering; send confirmed: false to correct."),
            {"field": "ordering"},
        )
    return _response_record(
        assignment,
        final=corrected or candidate.ordering,
        time_on_item_ms=time_on_item_ms,
        presentation=presentation,
    )


CONFIRM, CORRECT = "confirm", "correct"
MOVED_BUT_CONFIRMED = gettext_lazy(
    "You have moved responses, so this is no longer the proposed order. Press “Submit my correction” to send "
    "your order, or put the responses back in the proposed order to confirm it."
)
CHOOSE_A_BUTTON = gettext_lazy("Please choose “Confirm” or “Submit my correction”.")
NOT_MOVED_BUT_CORRECTED = gettext_lazy(
    "This is still the proposed order: nothing has been moved. Press “Confirm” if you agree with it, or move "
    "responses to correct it."
)


@dataclass(frozen=True)
class ItemAnswer:
    """What the item page sent: the button pressed (`CONFIRM` or `CORRECT`), the order of the list as letters (None
    when the page sent no positions: a confirmation), and the page script's time on the item."""

    action: str
    ordering: str | None
    time_on_item_ms: int | None = None
    edition: str | None = None


EDITION_CHANGED = gettext_lazy(
    "This page showed the item in another language than your study's; it is shown again in your study's language. "
    "Please answer it there."
)


@transaction.atomic
def validation_item_answer(*, respondent_id: Any, assignment_id: int, answer: ItemAnswer) -> SubmitOutcome | None:
    """Store the answer the item page sent to the respondent's pending validation item, as
    `validation_response_submit` does (presentation IN_PLACE).

    The list on the page starts as the proposed order. "Confirm" sends it unchanged (or no positions); "Submit my
    correction" sends a changed order. A button that does not match the list — possible without JavaScript, where
    both are always enabled — is refused with a message (ApplicationError: `MOVED_BUT_CONFIRMED`,
    `NOT_MOVED_BUT_CORRECTED`) rather than read one way or the other, so no answer is recorded that the person did
    not choose. An answer from a page that showed the item in another edition than the candidate's (``edition``) is
    refused (409, `EDITION_CHANGED`): it counts only for the key of the edition shown. Returns None, writing nothing,
    when the assignment is not the respondent's pending validation item (a stale tab, the back button, a withdrawn
    respondent). Costs four queries, as a submission does.
    """
    assignment = _assignment_locked(respondent_pk=respondent_id, pending_id=assignment_id)
    if assignment is None:
        return None
    proposed = assignment.candidate.ordering
    if answer.edition is not None and answer.edition != assignment.candidate.language:
        # An answer counts only for the key of the edition it was read in.
        raise ApplicationError(str(EDITION_CHANGED), {"edition": assignment.candidate.language}, status=409)
    if answer.action not in (CONFIRM, CORRECT):
        raise ApplicationError(str(CHOOSE_A_BUTTON))
    if answer.action == CONFIRM and answer.ordering not in (None, proposed):
        raise ApplicationError(str(MOVED_BUT_CONFIRMED))
    if answer.action == CORRECT and answer.ordering in (None, proposed):
        raise ApplicationError(str(NOT_MOVED_BUT_CORRECTED))
    return _response_record(
        assignment,
        final=answer.ordering or proposed,
        time_on_item_ms=answer.time_on_item_ms,
        presentation=ValidationResponse.Presentation.IN_PLACE,
    )


def _assignment_locked(
    *, respondent_pk: Any, pending_id: int | None = None, candidate_id: int | None = None
) -> Assignment | None:
    """The respondent's validation assignment, by its id while unanswered (``pending_id``: the item page's answer)
    or by its candidate (the study API's), with its respondent, candidate and own row locked, in that order, by one
    query; `answered_count` is how many items the respondent had answered. Every answer and withdrawal locks the
    respondent first (serving takes no lock: `validation_serve`), and the candidate's lock serialises N, Y and the
    decision. PostgreSQL hands back the locked rows as they are once the locks are held, so a submission that waited
    sees what the one before it wrote to them; `answered_count`, a subquery, counts as of the statement's start. The
    dilemma and virtue are not read: nothing that stores an answer shows them."""
    if pending_id is not None:
        found = _PENDING_ASSIGNMENT_LOCKED.run(respondent=respondent_pk, assignment=pending_id)
    else:
        found = _CANDIDATE_ASSIGNMENT_LOCKED.run(respondent=respondent_pk, candidate=candidate_id)
    return found[0] if found else None


def _validation_assignment_locked(respondent: Any, **lookup: Any) -> models.QuerySet[Assignment]:
    """The query of `_assignment_locked`, prepared once per process for each of its two lookups."""
    answered = (
        Assignment.objects.filter(respondent=OuterRef("respondent"), answered_at__isnull=False)
        .order_by()
        .values("respondent")
        .annotate(count=models.Count("pk"))
        .values("count")
    )
    return (
        Assignment.objects.select_related("respondent", "candidate")
        .select_for_update(of=("respondent", "candidate", "self"))
        # On the candidate's own field, so that it is an inner join: a lock cannot reach across an outer one.
        .filter(kind=Assignment.Kind.VALIDATION, candidate__round__gte=0, respondent_id=respondent, **lookup)
        .annotate(answered_count=Coalesce(Subquery(answered), 0))
        .order_by("pk")[:1]
    )


_PENDING_ASSIGNMENT_LOCKED = PreparedQuery(
    lambda respondent, assignment: _validation_assignment_locked(respondent, pk=assignment, answered_at__isnull=True),
    respondent=Respondent._meta.pk,
    assignment=Assignment._meta.pk,
)
_CANDIDATE_ASSIGNMENT_LOCKED = PreparedQuery(
    lambda respondent, candidate: _validation_assignment_locked(respondent, candidate_id=candidate),
    respondent=Respondent._meta.pk,
    candidate=KeyCandidate._meta.pk,
)


def _response_record(assignment: Assignment, *, final: str, time_on_item_ms: int | None, presentation: str):
    """Store ``final`` as the answer to a locked assignment (`_assignment_locked`), count it and apply the rule."""
    respondent, candidate = assignment.respondent, assignment.candidate
    if assignment.answered_at is not None:
        existing = ValidationResponse.objects.filter(respondent=respondent, candidate=candidate).first()
        if existing is not None:
            if existing.ordering != final:
                raise _first_answer_stands(ordering=existing.ordering, confirmed=existing.confirmed)
            return SubmitOutcome(response=existing, created=False, answered=assignment.answered_count)
    if presentation not in ValidationResponse.Presentation.values:
        raise ApplicationError(
            _("Unknown presentation %(presentation)s.") % {"presentation": repr(presentation)},
            {"field": "presentation"},
        )
    now = timezone.now()
    counted = candidate.status == KeyCandidate.Status.OPEN
    time_ms, measured_by = _time_on_item(assignment=assignment, now=now, reported_ms=time_on_item_ms)
    response = ValidationResponse.objects.create(
        respondent=respondent,
        candidate=candidate,
        confirmed=final == candidate.ordering,
        ordering=final,
        displayed_order=assignment.displayed_order,
        presentation=presentation,
        time_on_item_ms=time_ms,
        time_measured_by=measured_by,
        language=candidate.language,
        counted=counted,
        submitted_at=now,
    )
    assignment.answered_at = now
    _MARK_ANSWERED.run(assignment=assignment.pk, now=now)
    if counted and not respondent.flagged:
        _count(candidate, confirmed=response.confirmed, now=now)
    return SubmitOutcome(response=response, created=True, answered=assignment.answered_count + 1)


def _answer_marked(assignment: Any, now: datetime) -> tuple[models.QuerySet[Assignment], dict[str, Any]]:
    """The update of `_MARK_ANSWERED`: the assignment, and its answer's time."""
    return Assignment.objects.filter(pk=assignment), {"answered_at": now}


def _evaluation_counted(candidate: Any, confirmations: int, now: datetime) -> tuple[models.QuerySet, dict[str, Any]]:
    """The update of `_COUNT_EVALUATION`: the candidate, one more evaluation and ``confirmations`` (0 or 1) more
    confirmations, added in the database to what the row holds."""
    new_values = {
        "n_evaluations": F("n_evaluations") + 1,
        "n_confirmations": F("n_confirmations") + confirmations,
        "updated_at": now,
    }
    return KeyCandidate.objects.filter(pk=candidate), new_values


# The two updates of every answer, compiled once per process (resolving and compiling them cost Django several times
# what running them costs the database).
_MARK_ANSWERED = PreparedUpdate(
    _answer_marked, assignment=Assignment._meta.pk, now=Assignment._meta.get_field("answered_at")
)
_COUNT_EVALUATION = PreparedUpdate(
    _evaluation_counted,
    candidate=KeyCandidate._meta.pk,
    confirmations=KeyCandidate._meta.get_field("n_confirmations"),
    now=KeyCandidate._meta.get_field("updated_at"),
)


def _count(candidate: KeyCandidate, *, confirmed: bool, now: datetime) -> None:
    """Add one evaluation to a locked candidate and apply the promotion rule.

    An update of the two counters (no save, so no signal: N and Y change no key in use); the values in memory stay
    exact under the lock."""
    _COUNT_EVALUATION.run(candidate=candidate.pk, confirmations=int(confirmed), now=now)
    candidate.n_evaluations += 1
    candidate.n_confirmations += int(confirmed)
    candidate.updated_at = now
    decision = promotion_decision(
        candidate.n_evaluations,
        candidate.n_confirmations,
        settings.KEY_MIN_EVALUATIONS,
        settings.KEY_MIN_CONFIRMATION,
    )
    concerns = integrity.decision_concerns(candidate=candidate, outcome=decision.outcome)
    if concerns:
        candidate_hold(candidate=candidate, outcome=decision.outcome, concerns=concerns)
    elif decision.outcome is PromotionOutcome.RETAINED:
        candidate_retain(candidate=candidate, reason="promotion rule: N > minimum and q ≥ threshold")
    elif decision.outcome is PromotionOutcome.REJECTED:
        candidate_reject(candidate=candidate, reason="promotion rule: the threshold is out of reach")


def _first_answer_stands(**stored: Any) -> ApplicationError:
    """A repeat that contradicts the stored answer: refused, and the stored one is what counts."""
    if "ordering" in stored:
        stored["ordering"] = list(stored["ordering"])
    return ApplicationError(
        _("This item was already answered differently; the first answer stands."), {"stored": stored}, status=409
    )


def _time_on_item(*, assignment: Assignment, now: datetime, reported_ms: int | None) -> tuple[int, str]:
    """Time from serving the item to the answer, and which clock measured it ("client" or "server").

    A client-reported time (the API, or the page's script from showing the page to the press of a button) is
    used when it is plausible — between 0 and the server's own time — since the server's clock also counts
    network and page-load time; otherwise the server's time from serving the item."""
    served_ms = int((now - assignment.served_at).total_seconds() * 1000)
    if isinstance(reported_ms, int) and not isinstance(reported_ms, bool) and 0 <= reported_ms <= served_ms:
        return reported_ms, "client"
    return served_ms, "server"


@transaction.atomic
def attention_check_submit(*, respondent: Respondent, assignment_id: int, ordering: Any) -> Assignment:
    """Record the answer to an instructed-response attention check and return the check.

    It is passed when the instructed response is first. A failure flags the respondent: their responses
    stay stored but no longer count, and N and Y of those candidates are recomputed at once. A repeat of the
    same answer returns the stored one; a different answer is refused (409): the first answer stands.
    """
    answer = _parse_ordering(ordering)
    check = _attention_check_locked(respondent_pk=respondent.pk, pk=assignment_id)
    if check is None:
        if not Respondent.objects.filter(pk=respondent.pk).exists():
            raise ApplicationError(_("This respondent has withdrawn."), {}, status=403)
        raise ApplicationError(
            _("Attention check %(check)s was not assigned to this respondent.") % {"check": assignment_id},
            {"field": "attention_check"},
            status=403,
        )
    if check.answered_at is not None:
        if check.check_answer != answer:
            raise _first_answer_stands(ordering=check.check_answer)
        return check
    return _check_record(check, answer=answer)


@transaction.atomic
def attention_check_item_answer(*, respondent_id: Any, assignment_id: int, ordering: Any) -> Assignment | None:
    """Record the answer the item page sent to the respondent's pending attention check, as `attention_check_submit`
    does; None, writing nothing, when it is not their pending check (a stale tab, the back button, withdrawn).
    Two queries when passed: the locked rows and the answer."""
    answer = _parse_ordering(ordering)
    check = _attention_check_locked(respondent_pk=respondent_id, pk=assignment_id, answered_at__isnull=True)
    return _check_record(check, answer=answer) if check is not None else None


def _attention_check_locked(*, respondent_pk: Any, **lookup: Any) -> Assignment | None:
    """The respondent's attention check matching ``lookup`` with its respondent, both locked (the respondent
    first), in one query."""
    return (
        Assignment.objects.select_related("respondent")
        .select_for_update(of=("respondent", "self"))
        .filter(respondent_id=respondent_pk, kind=Assignment.Kind.ATTENTION_CHECK, **lookup)
        .order_by()
        .first()
    )


def _check_record(check: Assignment, *, answer: str) -> Assignment:
    respondent = check.respondent
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
            key_counts_recompute(candidate_ids=candidate_ids)
    return check
