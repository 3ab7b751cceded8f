"""The people's pairwise questionnaire (study "transitivity") on the shared flow (`surveys.questionnaire`).

A consenting respondent answers one block: its 21 pairs in both presentation orders, each asked
`TRANSITIVITY_REPETITIONS` times, in a sequence shuffled by the session's seed (`trials.trial_sequence`). An item is
{"block", "x", "y", "order", "repetition"} (x before y in the principles' order); an answer is {"situation": 1 or 2,
"chosen": the principle judged worse}. The respondent's choice proportions per presentation order are the choice
vectors that `scoring.transitivity` tests, as for the models.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from instruments import registry
from instruments.base import AnswerRejected, Presented, Questionnaire, items_language_notice
from instruments.transitivity import selectors, trials
from instruments.transitivity.models import Block, PresentationOrder, Principle, Vignette
from instruments.transitivity.presenters import block_shares, pair_comparison, plain_summary, report_view
from instruments.transitivity.reports import subject_results
from scoring.transitivity import pair_count, pairs
from surveys.models import QuestionnaireSession
from virtuemap_site.request_guards import ascii_int

ORDER_NUMBERS = {PresentationOrder.ORIGINAL: 1, PresentationOrder.REVERSED: 2}
ORDER_CODES = {number: code for code, number in ORDER_NUMBERS.items()}


def principle_codes() -> list[str]:
    return list(Principle.objects.order_by("index").values_list("code", flat=True))


def shown_first_and_second(item: Mapping[str, Any]) -> tuple[str, str]:
    """The principles of situation 1 and situation 2 as the item shows them."""
    return (item["x"], item["y"]) if item["order"] == PresentationOrder.ORIGINAL else (item["y"], item["x"])


def choice_vectors(
    items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]
) -> dict[tuple[int, str], list[float | None]]:
    """Return (block, order) → P_xy, the share of the answers judging x worse than y (x < y).

    Orders are "original" (Situation 1 shows x) and "reversed". A pair not yet answered in an order is None there.
    """
    codes = principle_codes()
    index = {code: i for i, code in enumerate(codes)}
    pair_index = {pair: i for i, pair in enumerate(pairs(len(codes)))}
    by_block: dict[int, list[tuple[int, int, int]]] = {}
    for item, answer in zip(items, answers, strict=True):
        x, y = index[item["x"]], index[item["y"]]
        by_block.setdefault(item["block"], []).append(
            (pair_index[x, y], ORDER_NUMBERS[item["order"]], answer["situation"])
        )
    vectors = {}
    for block, block_answers in by_block.items():
        for order, vector in trials.choice_vectors(n=len(codes), answers=block_answers).items():
            vectors[block, ORDER_CODES[order]] = vector
    return vectors


def _block_for_new_session(*, rng: random.Random) -> int:
    # Balanced random assignment: a block with the fewest sessions so far, ties at random, so blocks fill evenly
    # and nobody picks the mild ones.
    blocks = list(Block.objects.order_by("number").values_list("number", flat=True))
    designs = QuestionnaireSession.objects.filter(instrument="transitivity").values_list("design", flat=True)
    used = Counter(design.get("block") for design in designs)
    fewest = min(used[number] for number in blocks)
    return rng.choice([number for number in blocks if used[number] == fewest])


def _items_language() -> str:
    return items_language_notice(registry.instrument("transitivity").identity)


class PairwiseQuestionnaire(Questionnaire):
    """Which of two situations is morally worse, one pair per page."""

    title = gettext_lazy("Which situation is morally worse?")
    item_noun = gettext_lazy("Choice")
    # Two one-sentence situations (the about page's estimate too).
    seconds_per_item = 6
    agree_label = gettext_lazy("I agree: store my choices anonymously for research.")
    stylesheet = "css/transitivity.css"
    intro_template = "transitivity/questionnaire/_intro.html"
    item_template = "transitivity/questionnaire/_item.html"
    results_template = "transitivity/questionnaire/_results.html"
    export_columns = (
        ("block", "Severity block of the two situations (1 = the most severe violations)."),
        ("x", "Principle code of the pair's first alternative in the principles' order (A, Ce, Cp, F, Li, Lo, S)."),
        ("y", "Principle code of the pair's second alternative (after x in that order)."),
        ("order", "original (Situation 1 showed x) or reversed (Situation 1 showed y)."),
        ("repetition", "Which showing of this pair in this order (1 = the first)."),
        ("situation_1", "Principle code of the situation shown first (Situation 1)."),
        ("situation_2", "Principle code of the situation shown second (Situation 2)."),
        ("situation", "The situation the respondent judged morally worse: 1 or 2."),
        ("chosen", "Principle code of the situation judged worse."),
        ("x_worse", "1 if x was judged worse than y, else 0: the choice as P_xy counts it."),
    )

    def export_values(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> list[Any]:
        first, second = shown_first_and_second(item)
        return [
            item["block"],
            item["x"],
            item["y"],
            item["order"],
            item.get("repetition", 1),
            first,
            second,
            answer["situation"],
            answer["chosen"],
            int(answer["chosen"] == item["x"]),
        ]

    @property
    def about_url(self) -> str:
        return reverse("transitivity:about")

    def is_ready(self) -> bool:
        return Block.objects.exists()

    def design_options(self, params: Mapping[str, str]) -> dict[str, Any]:
        """A link may ask for one block (``?block=3``); by default the block fewest people have answered."""
        value = params.get("block")
        if not value:
            return {}
        block = ascii_int(value)
        if block is None or not Block.objects.filter(number=block).exists():
            raise AnswerRejected(_("There is no block %(block)s.") % {"block": value})
        return {"block": block}

    def sequence(self, *, seed: int, options: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        block = options.get("block") or _block_for_new_session(rng=random.Random(seed))
        repetitions = options.get("repetitions") or settings.TRANSITIVITY_REPETITIONS
        codes = principle_codes()
        all_pairs = pairs(len(codes))
        items = [
            {
                "block": block,
                "x": codes[all_pairs[trial.pair][0]],
                "y": codes[all_pairs[trial.pair][1]],
                "order": ORDER_CODES[trial.order],
                "repetition": trial.repetition,
            }
            for trial in trials.trial_sequence(n=len(codes), repetitions=repetitions, seed=seed)
        ]
        return items, {"block": block, "repetitions": repetitions}

    def intro_context(self, options: Mapping[str, Any]) -> dict[str, Any]:
        n = Principle.objects.count()
        repetitions = settings.TRANSITIVITY_REPETITIONS
        return {
            "pairs": pair_count(n),
            "repetitions": repetitions,
            "trials": pair_count(n) * len(ORDER_NUMBERS) * repetitions,
            "block_number": options.get("block"),
            "items_language": _items_language(),
        }

    def item_context(self, item: Mapping[str, Any]) -> dict[str, Any]:
        first, second = shown_first_and_second(item)
        vignettes = {
            v.principle_id: v for v in Vignette.objects.filter(block_id=item["block"], principle__in=[first, second])
        }
        return {
            "situation_1": vignettes[first],
            "situation_2": vignettes[second],
            "items_language": _items_language(),
        }

    def read_answer(self, item: Mapping[str, Any], data: Mapping[str, str]) -> dict[str, Any]:
        situation = data.get("situation")
        if situation not in ("1", "2"):
            raise AnswerRejected(_("Choose situation 1 or situation 2."))
        chosen = shown_first_and_second(item)[int(situation) - 1]
        return {"situation": int(situation), "chosen": chosen}

    def answer_fields(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, str]:
        return {"situation": str(answer["situation"])}

    def presented(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> Presented:
        """Situation 1 is the one shown first on the page."""
        return Presented(first_shown=1.0 if answer["situation"] == 1 else 0.0)

    def subject_summary(
        self, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]
    ) -> Mapping[str, Any] | None:
        return subject_results(alternatives=principle_codes(), vectors=choice_vectors(items, answers))

    def results_context(self, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]) -> dict:
        """The respondent's verdicts per presentation order and in plain words (naming the situations they read),
        and every model's answers on the same pairs: on the same block when the model was asked it, else on the
        same pairs of principles in the blocks it was asked."""
        if not items:
            return {"block_number": None, "view": None, "plain": None, "comparison": [], "pair_rows": []}
        block = items[0]["block"]
        person = subject_results(alternatives=principle_codes(), vectors=choice_vectors(items, answers))
        situations = {
            vignette.principle_id: {"name": vignette.principle.name, "text": vignette.text}
            for vignette in Vignette.objects.filter(block_id=block).select_related("principle")
        }
        models, mine = selectors.model_results_list(), block_shares(person)
        comparison = []
        for results, compared in zip(models, pair_comparison(mine, models, block=block), strict=True):
            on_block = {**results, "vectors": [v for v in results["vectors"] if v["block"] == block]}
            view = report_view(on_block, subject=results["model"]["name"]) if on_block["vectors"] else None
            url = reverse("transitivity:model-report", args=[results["model"]["slug"]])
            comparison.append({**compared, **results["model"], "url": url, "view": view})
        pair_rows = [
            {
                "x": situations[x]["name"],
                "y": situations[y]["name"],
                "you": share,
                "models": [one["shares"][index] for one in comparison],
            }
            for index, ((x, y), share) in enumerate(zip(person["pairs"], mine, strict=True))
        ]
        return {
            "block_number": block,
            "view": report_view(person, subject=_("Your choices")),
            "plain": plain_summary(person, situations=situations),
            "comparison": comparison,
            "same_block_models": [one for one in comparison if one["view"] is not None],
            "pair_rows": pair_rows,
        }
