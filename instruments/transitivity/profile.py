"""The transitivity test on the cross-instrument pages: how many complete choice sets each model of transitive
preference holds in, and the verdicts and Copeland order of the aggregate over both presentation orders (the
report's own figures, `reports.counts` and `presenters.verdicts`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from instruments.base import Figure, FigureContext, ProfileSection
from instruments.transitivity.charts import counts_chart
from instruments.transitivity.presenters import verdicts
from instruments.transitivity.reports import MODEL_NAMES, MODELS, counts, ranking_text


def figures(summary: Mapping[str, Any], context: FigureContext) -> list[Figure]:
    """Per model of transitive preference, the number of complete choice sets it holds in, out of the complete
    sets (no replicates: every set is one test)."""
    if "vectors" in summary:
        counted = counts(summary)
    elif "published_counts" in summary:
        # A paper's row: its block-level verdicts counted as printed (`papers`).
        counted = summary["published_counts"]
    else:
        return []
    return [
        Figure(
            key=model,
            label=_("%(model)s holds") % {"model": MODEL_NAMES[model]},
            mean=float(counted[model]),
            group=_("Choice sets where the model of transitive preference holds"),
            maximum=float(counted["complete"]),
        )
        for model in MODELS
    ]


def section(summaries: Sequence[tuple[str, Mapping[str, Any]]], context: FigureContext) -> ProfileSection:
    rows = []
    for name, summary in summaries:
        if "vectors" not in summary:
            continue
        aggregate = (summary.get("aggregate") or {}).get("result")
        rows.append(
            {
                "name": name,
                "counts": counts(summary),
                "verdicts": verdicts(aggregate),
                "ranking": ranking_text(aggregate["copeland_order"]) if aggregate else "",
                "sets": len((summary.get("aggregate") or {}).get("of") or []),
            }
        )
    # The paper's Figure 2 for these subjects: one bar per model of transitive preference, out of the complete sets.
    chart = counts_chart(rows=[(row["name"], row["counts"], row["counts"]["complete"]) for row in rows])
    return ProfileSection(template="transitivity/_profile_section.html", context={"rows": rows, "chart": chart})


def report_url(slug: str) -> str:
    return reverse("transitivity:model-report", args=[slug])
