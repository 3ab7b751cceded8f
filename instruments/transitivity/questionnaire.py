"""Services and selectors of the people's pairwise questionnaire (study "transitivity").

A consenting respondent gets one `PairwiseSession`: one block, its 21 pairs in both presentation orders, each
asked `TRANSITIVITY_REPETITIONS` times, in a sequence shuffled by a per-session seed (`trials.trial_sequence`).
Answers are taken in sequence order and stored exactly once per position: a repeated submission (refresh, back
button, double click) returns the stored answer and changes nothing. The respondent's choice proportions per
presentation order are the choice vectors that `scoring.transitivity` tests, as for the models.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from instruments.transitivity import trials
from instruments.transitivity.models import (
    Block,
    PairwiseAnswer,
    PairwiseSession,
    PresentationOrder,
    Principle,
    Vignette,
)
from scoring.transitivity import pairs
from surveys.models import Respondent, Study
from surveys.services import respondent_consent
from virtuemap_site.errors import ApplicationError

ORDER_NUMBERS = {PresentationOrder.ORIGINAL: 1, PresentationOrder.REVERSED: 2}
ORDER_CODES = {number: code for code, number in ORDER_NUMBERS.items()}


@dataclass(frozen=True)
class AnswerOutcome:
    answer: PairwiseAnswer
    created: bool


@dataclass(frozen=True)
class Trial:
    """One page of the questionnaire: the two situations shown, in the order shown."""

    position: int
    total: int
    block: int
    order: str
    situation_1: Vignette
    situation_2: Vignette


# --- selectors ----------------------------------------------------------------------------------------------


def principle_list() -> list[Principle]:
    return list(Principle.objects.order_by("index"))


def pairwise_session_get(*, respondent: Respondent | None) -> PairwiseSession | None:
    if respondent is None:
        return None
    return PairwiseSession.objects.filter(respondent=respondent).first()


def pairwise_answered_positions(*, session: PairwiseSession) -> set[int]:
    return set(session.answers.values_list("position", flat=True))


def pairwise_next_position(*, session: PairwiseSession) -> int | None:
    """The first position without an answer, or None when every position is answered."""
    answered = pairwise_answered_positions(session=session)
    return next((p for p in range(1, len(session.sequence) + 1) if p not in answered), None)


def pairwise_trial(*, session: PairwiseSession, position: int) -> Trial:
    item = session.sequence[position - 1]
    vignettes = {
        v.principle_id: v for v in Vignette.objects.filter(block_id=item["block"], principle__in=[item["x"], item["y"]])
    }
    first, second = (item["x"], item["y"]) if item["order"] == PresentationOrder.ORIGINAL else (item["y"], item["x"])
    return Trial(
        position=position,
        total=len(session.sequence),
        block=item["block"],
        order=item["order"],
        situation_1=vignettes[first],
        situation_2=vignettes[second],
    )


def pairwise_choice_vectors(*, session: PairwiseSession) -> dict[tuple[int, str], list[float | None]]:
    """Return (block, order) → P_xy, the share of the respondent's answers judging x worse than y (x < y).

    Orders are "original" (Situation 1 shows x) and "reversed". A pair not yet answered in an order is None there.
    """
    principles = principle_list()
    index = {p.code: p.index for p in principles}
    n = len(principles)
    pair_index = {pair: i for i, pair in enumerate(pairs(n))}
    by_block: dict[int, list[tuple[int, int, int]]] = {block: [] for block in session.blocks}
    for answer in session.answers.all():
        x, y = index[answer.principle_x_id], index[answer.principle_y_id]
        order = ORDER_NUMBERS[answer.order]
        # Recover the situation clicked from the principle chosen, so trials.choice_vectors does the counting.
        shown_first = x if order == 1 else y
        situation = 1 if index[answer.chosen_id] == shown_first else 2
        by_block.setdefault(answer.block_id, []).append((pair_index[x, y], order, situation))
    vectors = {}
    for block, answers in by_block.items():
        for order, vector in trials.choice_vectors(n=n, answers=answers).items():
            vectors[block, ORDER_CODES[order]] = vector
    return vectors


# --- services -----------------------------------------------------------------------------------------------


def _block_for_new_session(*, rng: random.Random) -> int:
    # Balanced random assignment: a block with the fewest sessions so far, ties at random, so blocks fill evenly
    # and nobody picks the mild ones.
    blocks = list(Block.objects.order_by("number").values_list("number", flat=True))
    if not blocks:
        raise ApplicationError("The transitivity instrument is not loaded yet.", status=409)
    used = Counter(number for chosen in PairwiseSession.objects.values_list("blocks", flat=True) for number in chosen)
    fewest = min(used[number] for number in blocks)
    return rng.choice([number for number in blocks if used[number] == fewest])


@transaction.atomic
def pairwise_session_start(
    *,
    respondent: Respondent,
    block: int | None = None,
    repetitions: int | None = None,
    seed: int | None = None,
    rng: random.Random | None = None,
) -> PairwiseSession:
    """Return the respondent's session, creating it on the first call: one block, shuffled by a stored seed.

    ``block``: a block number, or None for balanced random assignment (`_block_for_new_session`). ``repetitions``
    defaults to the setting TRANSITIVITY_REPETITIONS. A respondent who already has a session keeps it unchanged.
    """
    if respondent.study != Study.TRANSITIVITY:
        raise ApplicationError("This respondent consented to another study.", status=403)
    Respondent.objects.select_for_update().filter(pk=respondent.pk).first()
    existing = PairwiseSession.objects.filter(respondent=respondent).first()
    if existing is not None:
        return existing
    if block is None:
        block = _block_for_new_session(rng=rng or random.SystemRandom())
    elif not Block.objects.filter(number=block).exists():
        raise ApplicationError(f"There is no block {block}.", {"block": block}, status=400)
    repetitions = repetitions or settings.TRANSITIVITY_REPETITIONS
    seed = secrets.randbits(62) if seed is None else seed
    codes = [p.code for p in principle_list()]
    sequence = [
        {
            "block": block,
            "x": codes[pairs(len(codes))[trial.pair][0]],
            "y": codes[pairs(len(codes))[trial.pair][1]],
            "order": ORDER_CODES[trial.order],
            "repetition": trial.repetition,
        }
        for trial in trials.trial_sequence(n=len(codes), repetitions=repetitions, seed=seed)
    ]
    return PairwiseSession.objects.create(
        respondent=respondent, repetitions=repetitions, blocks=[block], seed=seed, sequence=sequence
    )


@transaction.atomic
def pairwise_consent_start(
    *,
    consent_version: str,
    panel: dict[str, str] | None = None,
    block: int | None = None,
    suspicion: Sequence[str] = (),
    network_bucket: int | None = None,
) -> PairwiseSession:
    """Record consent to the transitivity study and start (or resume) the respondent's session, all or nothing.

    ``suspicion`` and ``network_bucket``: as `respondent_consent` takes them, recorded as for every study.
    A refused consent or an unknown block raises ApplicationError and leaves nothing stored.
    """
    outcome = respondent_consent(
        study=Study.TRANSITIVITY,
        consent_version=consent_version,
        accept=True,
        panel=panel,
        suspicion=suspicion,
        network_bucket=network_bucket,
    )
    return pairwise_session_start(respondent=outcome.respondent, block=block)


@transaction.atomic
def pairwise_answer_submit(
    *, session: PairwiseSession, position: Any, situation: Any, time_on_item_ms: int | None = None
) -> AnswerOutcome:
    """Store the answer at ``position`` (1-based): ``situation`` 1 or 2 is the one judged morally worse.

    Exactly once per position: an answered position returns the stored answer with created=False and changes
    nothing (a different answer to it is refused with 409: the first answer stands). Only the next unanswered
    position can be answered (409 otherwise). The last answer completes the session and the respondent. Raises
    ApplicationError (400) for a position or situation that is not valid.
    """
    locked = PairwiseSession.objects.select_for_update().get(pk=session.pk)
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= len(locked.sequence):
        raise ApplicationError(f"There is no question {position!r} in this questionnaire.", {"position": position})
    if situation not in (1, 2) or isinstance(situation, bool):
        raise ApplicationError("Choose situation 1 or situation 2.", {"situation": situation})
    item = locked.sequence[position - 1]
    first, second = (item["x"], item["y"]) if item["order"] == PresentationOrder.ORIGINAL else (item["y"], item["x"])
    stored = locked.answers.filter(position=position).first()
    if stored is not None:
        if stored.chosen_id != (first if situation == 1 else second):
            raise ApplicationError(
                f"Question {position} was already answered differently; the first answer stands.",
                {"position": position, "stored": {"situation": 1 if stored.chosen_id == first else 2}},
                status=409,
            )
        return AnswerOutcome(answer=stored, created=False)
    expected = pairwise_next_position(session=locked)
    if position != expected:
        raise ApplicationError(
            f"Question {position} is not the next one; question {expected} is.", {"next": expected}, status=409
        )
    now = timezone.now()
    try:
        with transaction.atomic():
            answer = PairwiseAnswer.objects.create(
                session=locked,
                block_id=item["block"],
                principle_x_id=item["x"],
                principle_y_id=item["y"],
                order=item["order"],
                repetition=item["repetition"],
                chosen_id=first if situation == 1 else second,
                position=position,
                time_on_item_ms=time_on_item_ms,
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
