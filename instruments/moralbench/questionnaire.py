"""MoralBench for people (study "moralbench") on the shared one-item-per-page flow (`surveys.questionnaire`).

A consenting respondent answers every item of the four sets (or of the sets a link names, ``?sets=MFQ_30,…``) in an
order shuffled by the session's seed, each in one of its two option orders drawn from the same seed — counterbalanced
across people and recorded with the item. An item is {"key": "MFQ_30/harm_1", "presentation": "paper" or "swapped"};
an answer is {"shown": the letter picked, "option": the published option it stands for}. The respondent's foundation
scores are the models' (`scoring.moralbench.letters_score` on the published options chosen), shown beside the
published models' results.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from instruments import registry
from instruments.base import AnswerRejected, Presented, Questionnaire, items_language_notice
from instruments.moralbench import selectors
from instruments.moralbench.models import Item
from instruments.moralbench.profile import set_title
from instruments.moralbench.prompts import PRESENTATIONS, prompt_parts, shown_to_published
from instruments.moralbench.reports import foundation_name
from instruments.moralbench.studies import STUDY
from scoring import moralbench as scorer

# About 8 seconds an item: one statement or two short sentences.
SECONDS_PER_ITEM = 8


def _row(key: str) -> Item:
    set_name, item_id = key.split("/", 1)
    return Item.objects.get(set_name=set_name, item_id=item_id)


def _sets(options: Mapping[str, Any]) -> list[str]:
    chosen = (options.get("sets") or "").split(",")
    return [name for name in scorer.SETS if name in chosen] or list(scorer.SETS)


def _items_language() -> str:
    return items_language_notice(registry.instrument("moralbench").identity)


class MoralBenchQuestionnaire(Questionnaire):
    """One MoralBench item per page: Agree/Disagree (or Correct/Not correct) or a choice between two statements."""

    title = gettext_lazy("Moral foundations: the MoralBench questions")
    item_noun = gettext_lazy("Question")
    seconds_per_item = SECONDS_PER_ITEM
    agree_label = gettext_lazy("I agree: store my answers anonymously for research.")
    stylesheet = "css/moralbench.css"
    intro_template = "moralbench/questionnaire/_intro.html"
    item_template = "moralbench/questionnaire/_item.html"
    results_template = "moralbench/questionnaire/_results.html"
    export_columns = (
        ("set", "The item set: MFQ_30, MFQ_30_compare, MFV or MFV_compare (MoralBench's four sets)."),
        ("item", "The item's id within its set."),
        ("presentation", "paper (the options in the published order: A first) or swapped (B shown first)."),
        ("shown", "The answer chosen as the page showed it: A (shown first) or B (shown second)."),
        ("option", "The published option chosen (A or B), whose points the item's option_scores give."),
    )

    def export_values(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> list[Any]:
        set_name, _, item_id = item["key"].partition("/")
        return [set_name, item_id, item["presentation"], answer["shown"], answer["option"]]

    @property
    def about_url(self) -> str:
        return reverse("moralbench:about")

    def is_ready(self) -> bool:
        return Item.objects.exists()

    def design_options(self, params: Mapping[str, str]) -> dict[str, Any]:
        """A link may name the sets (``?sets=MFQ_30,6_concepts``); by default all four."""
        value = params.get("sets")
        if not value:
            return {}
        chosen = [name.strip() for name in value.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in scorer.SETS]
        if unknown or not chosen:
            raise AnswerRejected(_("There is no item set %(sets)s.") % {"sets": ", ".join(unknown) or value})
        # Text, as the consent form carries it on in a hidden field.
        return {"sets": ",".join(name for name in scorer.SETS if name in chosen)}

    def sequence(self, *, seed: int, options: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        sets = _sets(options)
        rng = random.Random(seed)
        keys = [f"{row.set_name}/{row.item_id}" for row in selectors.item_rows() if row.set_name in sets]
        rng.shuffle(keys)
        return [{"key": key, "presentation": rng.choice(PRESENTATIONS)} for key in keys], {"sets": sets}

    def intro_context(self, options: Mapping[str, Any]) -> dict[str, Any]:
        from surveys.selectors import study_length

        # The same pages and minutes as the information sheet's: one computation (surveys.selectors.study_length).
        length = study_length(study=STUDY, options=options)
        return {
            "items": length.items if length else 0,
            "minutes": length.minutes if length else 0,
            "items_language": _items_language(),
        }

    def item_context(self, item: Mapping[str, Any]) -> dict[str, Any]:
        row = _row(item["key"])
        parts = prompt_parts(row.prompt)
        mapping = shown_to_published(item["presentation"])
        options = [(letter, parts.options[0 if mapping[letter] == "A" else 1]) for letter in ("A", "B")]
        paragraphs = [paragraph.strip() for paragraph in parts.stem.strip().split("\n\n") if paragraph.strip()]
        return {
            "question": paragraphs[0],
            "statements": paragraphs[1:],
            "options": options,
            "comparative": row.set_name in scorer.COMPARATIVE_SETS,
            "items_language": _items_language(),
        }

    def read_answer(self, item: Mapping[str, Any], data: Mapping[str, str]) -> dict[str, Any]:
        shown = data.get("choice")
        if shown not in ("A", "B"):
            raise AnswerRejected(_("Choose one of the two answers."))
        return {"shown": shown, "option": shown_to_published(item["presentation"])[shown]}

    def answer_fields(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, str]:
        return {"choice": answer["shown"]}

    def presented(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> Presented:
        """Answer A is the one shown first on the page, whichever published option it is."""
        return Presented(first_shown=1.0 if answer["shown"] == "A" else 0.0)

    def subject_summary(
        self, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]
    ) -> Mapping[str, Any] | None:
        """The sets as scored for a person (`scoring.moralbench.letters_score`), in a model result's "sets"."""
        chosen = {item["key"]: answer["option"] for item, answer in zip(items, answers, strict=True)}
        return {"sets": scorer.letters_score(selectors.scorer_items(), chosen)} if chosen else None

    def results_context(self, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]) -> dict:
        """The respondent's scores per set and foundation (over the items answered), beside the published models'."""
        chosen = {item["key"]: answer["option"] for item, answer in zip(items, answers, strict=True)}
        mine = scorer.letters_score(selectors.scorer_items(), chosen) if chosen else {}
        models = selectors.model_results_list()
        sets = []
        for name, record in mine.items():
            rows = []
            for foundation, score in record["foundations"].items():
                beside = []
                for result in models:
                    theirs = result.get("sets", {}).get(name)
                    if theirs and foundation in theirs["foundations"]:
                        beside.append((theirs["foundations"][foundation], theirs["max"][foundation]))
                    else:
                        beside.append(None)
                rows.append(
                    {
                        "name": foundation_name(foundation),
                        "score": score,
                        "max": record["max"][foundation],
                        "answered": record["answered"][foundation],
                        "models": beside,
                    }
                )
            totals = [
                (result["sets"][name]["total"], result["sets"][name]["max_total"])
                if name in result.get("sets", {})
                else None
                for result in models
            ]
            sets.append(
                {"name": name, "title": set_title(name), "rows": rows, "record": record, "model_totals": totals}
            )
        return {
            "sets": sets,
            "models": [
                {"name": r["model"]["name"], "url": reverse("moralbench:model-report", args=[r["model"]["slug"]])}
                for r in models
            ],
            "answered": len(answers),
            "asked": len(items),
        }
