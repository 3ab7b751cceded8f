"""The people's pairwise sessions and answers move into the shared questionnaire tables (`surveys`), unchanged: the
same respondent, seed, sequence, positions, times and choices; the block and repetitions become the session's
design, and each answer keeps the item it answered and the situation clicked."""

from django.db import migrations


def _shown(item):
    return (item["x"], item["y"]) if item["order"] == "original" else (item["y"], item["x"])


def forward(apps, schema_editor):
    PairwiseSession = apps.get_model("transitivity", "PairwiseSession")
    Session = apps.get_model("surveys", "QuestionnaireSession")
    Answer = apps.get_model("surveys", "QuestionnaireAnswer")
    for old in PairwiseSession.objects.order_by("pk").iterator():
        new = Session.objects.create(
            respondent_id=old.respondent_id,
            instrument="transitivity",
            seed=old.seed,
            design={"block": old.blocks[0], "repetitions": old.repetitions},
            sequence=old.sequence,
            completed_at=old.completed_at,
        )
        # auto_now_add would stamp today; the session began when it began.
        Session.objects.filter(pk=new.pk).update(created_at=old.created_at)
        Answer.objects.bulk_create(
            Answer(
                session=new,
                position=answer.position,
                item=old.sequence[answer.position - 1],
                value={
                    "situation": 1 + _shown(old.sequence[answer.position - 1]).index(answer.chosen_id),
                    "chosen": answer.chosen_id,
                },
                time_on_item_ms=answer.time_on_item_ms,
                answered_at=answer.answered_at,
            )
            for answer in old.answers.order_by("position")
        )


def backward(apps, schema_editor):
    PairwiseSession = apps.get_model("transitivity", "PairwiseSession")
    PairwiseAnswer = apps.get_model("transitivity", "PairwiseAnswer")
    Session = apps.get_model("surveys", "QuestionnaireSession")
    for new in Session.objects.filter(instrument="transitivity").order_by("pk").iterator():
        old = PairwiseSession.objects.create(
            respondent_id=new.respondent_id,
            repetitions=new.design["repetitions"],
            blocks=[new.design["block"]],
            seed=new.seed,
            sequence=new.sequence,
            completed_at=new.completed_at,
        )
        PairwiseSession.objects.filter(pk=old.pk).update(created_at=new.created_at)
        PairwiseAnswer.objects.bulk_create(
            PairwiseAnswer(
                session=old,
                block_id=answer.item["block"],
                principle_x_id=answer.item["x"],
                principle_y_id=answer.item["y"],
                order=answer.item["order"],
                repetition=answer.item["repetition"],
                chosen_id=answer.value["chosen"],
                position=answer.position,
                time_on_item_ms=answer.time_on_item_ms,
                answered_at=answer.answered_at,
            )
            for answer in new.answers.order_by("position")
        )
        new.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("transitivity", "0002_drop_choice_runs"),
        ("surveys", "0012_questionnaire_and_consent_languages"),
    ]

    operations = [migrations.RunPython(forward, backward)]
