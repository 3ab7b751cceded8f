"""Reads of the MoralBench instrument: the item bank as the scorer sees it, and models' stored results."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from instruments.moralbench.models import Item, MoralBenchSource
from instruments.moralbench.prompts import prompt_parts
from llmruns.models import Result, Run
from scoring import moralbench as scorer

INSTRUMENT = "moralbench"


def source() -> MoralBenchSource | None:
    return MoralBenchSource.objects.first()


def item_rows() -> list[Item]:
    """Every loaded item, set by set in the paper's set order, each set in its published order."""
    order = {name: index for index, name in enumerate(scorer.SETS)}
    return sorted(Item.objects.all(), key=lambda row: (order[row.set_name], row.position))


def scorer_item(row: Item) -> scorer.Item:
    parts = prompt_parts(row.prompt)
    comparative = row.set_name in scorer.COMPARATIVE_SETS
    return scorer.Item(
        set_name=row.set_name,
        id=row.item_id,
        foundation=row.foundation,
        scores={"A": row.score_a, "B": row.score_b},
        options=parts.options,
        statement="" if comparative else parts.statement,
    )


def scorer_items() -> list[scorer.Item]:
    """The item bank as `scoring.moralbench.Item`s."""
    return [scorer_item(row) for row in item_rows()]


def run_record(run: Run | None) -> dict[str, Any] | None:
    """What the reports say about the run a result comes from."""
    if run is None:
        return None
    return {
        "id": run.pk,
        "status": run.status,
        "plan": run.plan,
        "temperature": run.request_params.get("temperature"),
        "seed": run.seed,
        "trials": run.trials_total,
        "stored": run.trials_done,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def stored_results() -> QuerySet[Result]:
    return (
        Result.objects.filter(instrument=INSTRUMENT)
        .select_related("model", "run")
        .order_by("model__name", "model__slug")
    )


def results_record(result: Result) -> dict[str, Any]:
    return {
        "model": {"slug": result.model.slug, "name": result.model.name},
        "run": run_record(result.run),
        "scored_at": result.scored_at.isoformat() if result.scored_at else None,
        **result.summary,
    }


def model_results_list(*, slugs: list[str] | None = None) -> list[dict[str, Any]]:
    """The stored results of every model measured (or of the models ``slugs``, in that order), by model name."""
    results = stored_results()
    if slugs is None:
        return [results_record(result) for result in results]
    found = {result.model.slug: result for result in results.filter(model__slug__in=slugs)}
    return [results_record(found[slug]) for slug in slugs if slug in found]


def model_results_get(*, slug: str) -> dict[str, Any] | None:
    result = stored_results().filter(model__slug=slug).first()
    return results_record(result) if result is not None else None


def _answer_problem(key: str, answer: Any) -> dict[str, str] | None:
    """What is wrong with one entry of an answer set (None: nothing): a letter, or a list of 1 to
    `scoring.moralbench.MAX_LETTER_REPLICATES` letters from replicated runs."""
    if not isinstance(answer, (str, list)):
        message = _('%(item)s: the answer must be "A" or "B", or a list of them') % {"item": key}
        return {"item": key, "problem": "wrong_type", "message": message}
    letters = scorer.replicate_letters(answer)
    if not letters:
        return {
            "item": key,
            "problem": "no_letters",
            "message": _("%(item)s: the list of letters is empty") % {"item": key},
        }
    if len(letters) > scorer.MAX_LETTER_REPLICATES:
        message = _("%(item)s: %(count)s letters; at most %(most)s replicates an item") % {
            "item": key,
            "count": len(letters),
            "most": scorer.MAX_LETTER_REPLICATES,
        }
        return {"item": key, "problem": "too_many_letters", "message": message}
    for letter in letters:
        if not isinstance(letter, str):
            message = _('%(item)s: the answer must be "A" or "B", or a list of them') % {"item": key}
            return {"item": key, "problem": "wrong_type", "message": message}
        if letter not in scorer.LETTERS:
            message = _("%(item)s: %(letter)s is not A or B") % {"item": key, "letter": repr(letter)}
            return {"item": key, "problem": "bad_letter", "message": message}
    return None


def answer_set_score(*, answers: Any) -> dict[str, Any]:
    """Score an answer set {"MFQ_30/authority_1": "A", "MFQ_30/harm_1": ["A", "B", "A", "A", "A"], …} (any subset of
    the items; a list holds the letters of replicated runs, scored by their mean points): per set the foundation
    scores, total and maxima over the answered items. Raises ApplicationError listing every bad entry, naming its
    item."""
    from virtuemap_site.errors import ApplicationError

    if not isinstance(answers, dict) or not answers:
        raise ApplicationError(_('answers must be an object of at least one item id → "A" or "B" (or a list of them)'))
    items = scorer_items()
    known = {item.key for item in items}
    errors = []
    for key, answer in answers.items():
        if key not in known:
            errors.append(
                {"item": key, "problem": "unknown_item", "message": _("%(item)s: no such item") % {"item": key}}
            )
        elif (problem := _answer_problem(key, answer)) is not None:
            errors.append(problem)
    if errors:
        shown = _("; ").join(error["message"] for error in errors[:3])
        more = _(" (and %(more)s more)") % {"more": len(errors) - 3} if len(errors) > 3 else ""
        raise ApplicationError(shown + more, {"errors": errors})
    return {"instrument": INSTRUMENT, "sets": scorer.letters_score(items, answers)}


def people_reference(*, items: list[scorer.Item] | None = None) -> dict[str, Any]:
    """People's scores per set and foundation (median, quartiles, N) from the questionnaire's stored answers, a
    person counting in a set only when they answered all of it (`scoring.moralbench.people_distribution`): public, so
    only the answers of respondents who may be counted (`surveys.selectors.public_questionnaire_answers`) and only
    the sets enough people answered (`surveys.selectors.enough_people`). ``items``: the item bank when the caller has
    already read it (a query saved)."""
    from surveys.selectors import enough_people, public_questionnaire_answers

    answers: dict[int, dict[str, str]] = {}
    rows = public_questionnaire_answers(instrument=INSTRUMENT).values_list("session_id", "item", "value")
    for session, item, value in rows.iterator():
        answers.setdefault(session, {})[item["key"]] = value["option"]
    spread = scorer.people_distribution(scorer_items() if items is None else items, answers.values())
    return {name: parts for name, parts in spread.items() if enough_people(parts["total"]["n"])}
