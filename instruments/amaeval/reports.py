"""AMAeval's reports: the published results in the layout of the paper's Table 3, as rows, CSV and JSON, with
people's row beside the models' and the agreement figures (Krippendorff's alpha)."""

from __future__ import annotations

import csv
import io
from collections.abc import Hashable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from django.utils.translation import gettext_lazy, ngettext

from instruments.amaeval import selectors
from instruments.amaeval.items import TASKS, RatingItem, paper_table3
from llmruns.models import Result
from llmruns.selectors import result_list
from scoring.agreement import AlphaEstimate, alpha_with_interval
from scoring.amaeval import (
    AGREEMENT_LEVELS,
    PersonRating,
    annotator_units,
    dynamic_performance,
    people_metrics,
    people_units,
    rank_correlation,
    static_performance,
)

COLUMNS = (
    ("model", gettext_lazy("Model")),
    ("fidelity", gettext_lazy("Fidelity")),
    ("judge", gettext_lazy("Judge")),
    ("static_accuracy_t1", "S-Acc Π₁ (%)"),
    ("static_f1_t1", "S-F1 Π₁ (%)"),
    ("mae_t1", "MAE Π₁"),
    ("static_accuracy_t2", "S-Acc Π₂ (%)"),
    ("static_f1_t2", "S-F1 Π₂ (%)"),
    ("dynamic_accuracy_t1", "D-Acc Π₁ (%)"),
    ("dynamic_accuracy_t2", "D-Acc Π₂ (%)"),
    ("ama", "AMA"),
    ("ama_sd", gettext_lazy("AMA sd")),
    ("replicates", gettext_lazy("Replicates")),
    ("unparseable", gettext_lazy("Unparseable ratings")),
)


def table_row(*, model: str, slug: str, run: int | None, summary: Mapping[str, Any]) -> dict[str, Any]:
    """One model's row of Table 3 from its result summary (a part the run left out is None)."""
    static = summary.get("static") or {}
    dynamic = summary.get("dynamic") or {}
    subsets = dynamic.get("subsets") or {}

    def part(record: Mapping[str, Any], task: str, name: str) -> Any:
        return (record.get(task) or {}).get(name)

    return {
        "model": model,
        "slug": slug,
        "run": run,
        "fidelity": summary.get("fidelity"),
        "judge": dynamic.get("judge") or None,
        "judge_mode": dynamic.get("judge_mode"),
        "scenario_set": dynamic.get("scenario_set"),
        "scenarios": dynamic.get("scenarios"),
        "static_accuracy_t1": part(static, "t1", "accuracy"),
        "static_f1_t1": part(static, "t1", "f1"),
        "mae_t1": part(static, "t1", "mae"),
        "static_accuracy_t2": part(static, "t2", "accuracy"),
        "static_f1_t2": part(static, "t2", "f1"),
        "dynamic_accuracy_t1": part(dynamic, "t1", "accuracy"),
        "dynamic_accuracy_t2": part(dynamic, "t2", "accuracy"),
        **{
            f"dynamic_accuracy_t{task}_{name}": part(subsets.get(name) or {}, f"t{task}", "accuracy")
            for name in ("seen", "unseen")
            for task in TASKS
        },
        **{f"scenarios_{name}": (subsets.get(name) or {}).get("scenarios") for name in ("seen", "unseen")},
        "ama": summary.get("ama"),
        "ama_sd": summary.get("ama_sd"),
        "replicates": summary.get("replicates"),
        "unparseable": sum(part(static, task, "unparseable") or 0 for task in ("t1", "t2")),
    }


# People's row: what the static part measures of a model, measured of people's ratings against the same gold labels.
# The dynamic part (generating reasoning) and so the AMA score do not apply to people.
# Where each dynamic figure comes from: its judge, the scenario set, and the scenarios the published judge saw in
# training and validation (the first 40 of the published 79) apart from those it did not.
DYNAMIC_COLUMNS = (
    "judge_mode",
    "scenario_set",
    "scenarios",
    "scenarios_seen",
    "dynamic_accuracy_t1_seen",
    "dynamic_accuracy_t2_seen",
    "scenarios_unseen",
    "dynamic_accuracy_t1_unseen",
    "dynamic_accuracy_t2_unseen",
)
PEOPLE_NOT_APPLICABLE = (
    "fidelity",
    "judge",
    "dynamic_accuracy_t1",
    "dynamic_accuracy_t2",
    "ama",
    "ama_sd",
    *DYNAMIC_COLUMNS,
)
# The bootstrap of every published alpha: fixed, so the page, the downloads and the API show the same interval.
AGREEMENT_SEED = 15
AGREEMENT_RESAMPLES = 1000


def people_row(ratings: Sequence[PersonRating]) -> dict[str, Any]:
    """People's row of Table 3: accuracy and weighted F1 per task and task 1's MAE against the gold labels, every
    rating a pair as a model's reply is (percent, as the models' rows); N per task and the respondents."""
    respondents = len({rating.respondent for rating in ratings})
    metrics = {task: people_metrics(task, ratings) for task in TASKS}

    def percent(value: float | None) -> float | None:
        return None if value is None else 100 * value

    row: dict[str, Any] = {
        "model": ngettext("People (%(n)d respondent)", "People (%(n)d respondents)", respondents) % {"n": respondents},
        "slug": "people",
        "run": None,
        "respondents": respondents,
        "static_accuracy_t1": percent(metrics[1].accuracy),
        "static_f1_t1": percent(metrics[1].f1),
        "mae_t1": metrics[1].mae,
        "static_accuracy_t2": percent(metrics[2].accuracy),
        "static_f1_t2": percent(metrics[2].f1),
        "n_t1": metrics[1].n,
        "n_t2": metrics[2].n,
        "replicates": None,
        "unparseable": 0,
        "not_applicable": list(PEOPLE_NOT_APPLICABLE),
    }
    return row | dict.fromkeys(PEOPLE_NOT_APPLICABLE)


@lru_cache(maxsize=16)
def _estimate(units: tuple[tuple[int, int], ...], level: str, clusters: tuple[Hashable, ...] | None) -> AlphaEstimate:
    # Keyed by the data itself: a new rating or a withdrawal is a new key, an unchanged page view costs nothing.
    return alpha_with_interval(
        units,
        level=level,
        rng=np.random.default_rng(AGREEMENT_SEED),
        clusters=clusters,
        resamples=AGREEMENT_RESAMPLES,
    )


def agreement(items: Sequence[RatingItem], ratings: Sequence[PersonRating]) -> dict[str, Any]:
    """Krippendorff's alpha per task (interval for task 1 on ratings both on 1–4, nominal for task 2) with its
    bootstrap interval: between the dataset's two annotators (every item both rated; the bootstrap resamples items)
    and between people on the platform and the gold labels (every rating a unit of two values; the bootstrap resamples
    respondents, whose ratings are not independent of each other)."""
    record: dict[str, Any] = {
        "seed": AGREEMENT_SEED,
        "resamples": AGREEMENT_RESAMPLES,
        "annotators": {},
        "people_gold": {},
    }
    for task in TASKS:
        level = AGREEMENT_LEVELS[task]
        pairs = [(item.score, item.additional_score) for item in items if item.task == task]
        record["annotators"][f"t{task}"] = _estimate(tuple(annotator_units(task, pairs)), level, None).record()
        units, respondents = people_units(task, ratings)
        # Respondents are UUIDs: their text is an ordering-stable, hashable cluster label.
        clusters = tuple(str(respondent) for respondent in respondents)
        record["people_gold"][f"t{task}"] = _estimate(tuple(units), level, clusters).record()
    return record


def results_table(results: Sequence[Result] | None = None) -> list[dict[str, Any]]:
    """Every published AMAeval result as a Table 3 row, by model name."""
    results = result_list(instrument="amaeval") if results is None else results
    return [
        table_row(model=result.model.name, slug=result.model.slug, run=result.run_id, summary=result.summary)
        for result in results
    ]


CORRELATION_COLUMNS = (
    "static_accuracy_t1",
    "static_accuracy_t2",
    "static_f1_t1",
    "static_f1_t2",
    "dynamic_accuracy_t1",
    "dynamic_accuracy_t2",
)
# What the correlation is, for every page and download that shows it.
CORRELATION_STATISTIC = (
    "Spearman's rho across models between static performance, the mean of static accuracy and weighted F1 on tasks 1 "
    "and 2, and dynamic performance, the mean dynamic accuracy on tasks 1 and 2 (the paper's section 5.4)"
)


def static_dynamic_correlation(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The paper's static–dynamic rank correlation (`scoring.amaeval.static_performance`, `dynamic_performance`,
    `rank_correlation`) across the rows that have every number it needs, per judge (a judge's scores are
    comparable only with its own)."""
    by_judge: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        values = [row[name] for name in CORRELATION_COLUMNS]
        if row["judge"] and all(value is not None for value in values):
            pair = (static_performance(*values[:4]), dynamic_performance(*values[4:]))
            by_judge.setdefault(row["judge"], []).append(pair)
    return {
        judge: {
            "models": len(pairs),
            "spearman": rank_correlation([s for s, _ in pairs], [d for _, d in pairs]),
        }
        for judge, pairs in sorted(by_judge.items())
    }


def public_ratings(items: Sequence[RatingItem] | None = None) -> list[PersonRating]:
    """People's ratings as public pages, downloads and the API may aggregate them: none until enough people rated
    (`surveys.selectors.enough_people`), so no people's row or agreement statistic comes from a few raters."""
    from surveys.selectors import enough_people

    ratings = selectors.people_ratings(items)
    return ratings if enough_people(len({rating.respondent for rating in ratings})) else []


@lru_cache(maxsize=1)
def paper_correlation() -> dict[str, Any]:
    """The same statistic over the paper's own Table 3 (`fixtures/paper_table3.json`, 18 models and its judge),
    beside the ρ the paper prints."""
    table = paper_table3()
    pairs = [
        (
            static_performance(
                model["static"]["accuracy_task1"],
                model["static"]["accuracy_task2"],
                model["static"]["f1_task1"],
                model["static"]["f1_task2"],
            ),
            dynamic_performance(model["dynamic"]["accuracy_task1"], model["dynamic"]["accuracy_task2"]),
        )
        for model in table["models"]
    ]
    return {
        "models": len(pairs),
        "spearman": rank_correlation([s for s, _ in pairs], [d for _, d in pairs]),
        "printed": table["published_summary"]["spearman_static_vs_dynamic_rank"]["rho"],
    }


def report() -> dict[str, Any]:
    """Everything the page, the JSON download and the API show: the models' rows, the static-versus-dynamic
    correlation, people's row and the agreement figures (people's from `public_ratings`)."""
    rows = results_table()
    items = selectors.rating_items()
    ratings = public_ratings(items)
    return {
        "models": rows,
        "static_dynamic_spearman": static_dynamic_correlation(rows),
        "static_dynamic_statistic": CORRELATION_STATISTIC,
        "paper_static_dynamic_spearman": paper_correlation(),
        "people": people_row(ratings),
        "agreement": agreement(items, ratings),
    }


def results_csv(rows: Sequence[Mapping[str, Any]], people: Mapping[str, Any] | None = None) -> str:
    """The rows as CSV, then people's row when anyone has rated (its not-applicable columns say "n/a")."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = [*(name for name, _ in COLUMNS), *DYNAMIC_COLUMNS]
    writer.writerow(["slug", "run", *names])
    for row in rows:
        writer.writerow([row["slug"], row["run"], *("" if row.get(name) is None else row[name] for name in names)])
    if people is not None and people["respondents"]:
        cells = ["n/a" if name in PEOPLE_NOT_APPLICABLE else people[name] for name in names]
        writer.writerow([people["slug"], "", *("" if cell is None else cell for cell in cells)])
    return out.getvalue()
