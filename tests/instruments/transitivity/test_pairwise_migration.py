"""People's pairwise answers move into the shared questionnaire tables without loss: a database at the schema before
the move, with a finished and an unfinished session, is migrated forward; every answer is found with the item it
answered and the situation clicked, and the choice proportions are those the old rows gave. Migrating back restores
the old rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from instruments.transitivity import trials
from tests.migrations import migrate_to

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("transitivity", "0002_drop_choice_runs"), ("surveys", "0011_content_and_study_moved_to_virtuemap")]
# surveys at its latest migration: the checks below read the rows through today's models, which later additive
# migrations (e.g. QuestionnaireAnswer.replaced) extend.
AFTER = [("transitivity", "0004_pairwise_tables_dropped"), ("surveys", None)]
CODES = ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]


def _old_session(apps, *, block: int, seed: int, answered: int):
    from instruments.transitivity.questionnaire import ORDER_CODES
    from scoring.transitivity import pairs

    text = apps.get_model("surveys", "ConsentText").objects.get_or_create(
        study="transitivity", version="1", defaults={"title": "t", "information_sheet": "i", "consent_statement": "c",
                                                     "text_hash": "0" * 64, "is_current": True})[0]  # fmt: skip
    respondent = apps.get_model("surveys", "Respondent").objects.create(
        study="transitivity", consent_text=text, consent_version="1", consent_text_hash="0" * 64,
        consented_at="2026-06-01T10:00:00+00:00",
    )  # fmt: skip
    sequence = [
        {"block": block, "x": CODES[pairs(7)[t.pair][0]], "y": CODES[pairs(7)[t.pair][1]],
         "order": ORDER_CODES[t.order], "repetition": t.repetition}
        for t in trials.trial_sequence(n=7, repetitions=1, seed=seed)
    ]  # fmt: skip
    session = apps.get_model("transitivity", "PairwiseSession").objects.create(
        respondent=respondent, repetitions=1, blocks=[block], seed=seed, sequence=sequence,
        completed_at="2026-06-01T10:20:00+00:00" if answered == len(sequence) else None,
    )  # fmt: skip
    Answer = apps.get_model("transitivity", "PairwiseAnswer")
    for position, item in enumerate(sequence[:answered], start=1):
        # The alphabetically first principle is judged worse, whichever side it is shown on.
        Answer.objects.create(
            session=session, block_id=block, principle_x_id=item["x"], principle_y_id=item["y"], order=item["order"],
            repetition=1, chosen_id=min(item["x"], item["y"]), position=position, time_on_item_ms=900 + position,
            answered_at="2026-06-01T10:10:00+00:00",
        )  # fmt: skip
    return respondent.pk


def test_pairwise_sessions_move_into_the_shared_questionnaire_and_back(transitivity_instrument):
    old = migrate_to(BEFORE)
    finished = _old_session(old, block=3, seed=11, answered=42)
    unfinished = _old_session(old, block=5, seed=12, answered=7)

    migrate_to(AFTER)

    from instruments.transitivity.questionnaire import choice_vectors
    from surveys.models import QuestionnaireAnswer, QuestionnaireSession
    from surveys.questionnaire import questionnaire_answers, questionnaire_next_position

    done = QuestionnaireSession.objects.get(respondent_id=finished)
    assert done.instrument == "transitivity" and done.design == {"block": 3, "repetitions": 1} and done.seed == 11
    assert done.is_complete and done.answers.count() == 42
    for answer in done.answers.all():
        shown = (answer.item["x"], answer.item["y"])
        shown = shown if answer.item["order"] == "original" else shown[::-1]
        assert answer.value == {"situation": 1 + shown.index(min(shown)), "chosen": min(shown)}
        assert answer.item == done.sequence[answer.position - 1] and answer.time_on_item_ms == 900 + answer.position
    vectors = choice_vectors(*questionnaire_answers(session=done))
    for order in ("original", "reversed"):
        # x < y in the principles' order, and the alphabetically first code is the lower index: P_xy = 1 always.
        assert vectors[3, order] == [1.0] * 21
    partly = QuestionnaireSession.objects.get(respondent_id=unfinished)
    assert not partly.is_complete and questionnaire_next_position(session=partly) == 8
    assert QuestionnaireAnswer.objects.count() == 49

    back = migrate_to(BEFORE)
    assert back.get_model("transitivity", "PairwiseAnswer").objects.count() == 49
    restored = back.get_model("transitivity", "PairwiseSession").objects.get(respondent_id=finished)
    assert restored.blocks == [3] and restored.answers.filter(chosen_id="A").count() == 6 * 2
    migrate_to(MigrationExecutor(connection).loader.graph.leaf_nodes())
