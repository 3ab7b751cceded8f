"""AMAeval on the cross-instrument pages: the AMA score and its parts as figures (replicate means with their
standard deviations), and the paper's Table 3 row of each subject (`reports.table_row`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from instruments.amaeval.reports import COLUMNS, table_row
from instruments.base import Figure, FigureContext, ProfileSection

# (key, label, part, task, statistic): the AMA score's parts, in the order of its formula.
PARTS = (
    ("static_f1_t1", gettext_lazy("Static weighted F1, task 1 (%)"), "static", "t1", "f1"),
    ("static_f1_t2", gettext_lazy("Static weighted F1, task 2 (%)"), "static", "t2", "f1"),
    ("dynamic_accuracy_t1", gettext_lazy("Dynamic accuracy, task 1 (%)"), "dynamic", "t1", "accuracy"),
    ("dynamic_accuracy_t2", gettext_lazy("Dynamic accuracy, task 2 (%)"), "dynamic", "t2", "accuracy"),
    ("mae_t1", gettext_lazy("MAE, task 1 (0–4)"), "static", "t1", "mae"),
)


def figures(summary: Mapping[str, Any], context: FigureContext) -> list[Figure]:
    """The AMA score, then each of its parts the run measured. A judge's dynamic figures compare only with results
    under the same judge, which the group names."""
    replicates = int(summary.get("replicates") or 0)
    judge = ((summary.get("dynamic") or {}).get("judge")) or ""
    group = _("AMA score and its parts (judge %(judge)s)") % {"judge": judge} if judge else _("AMA score and its parts")
    found = []
    if summary.get("ama") is not None:
        found.append(Figure("ama", _("AMA score"), summary["ama"], summary.get("ama_sd"), replicates, group))
    for key, label, part, task, statistic in PARTS:
        interval = (((summary.get(part) or {}).get(task) or {}).get("intervals") or {}).get(statistic)
        if interval and interval.get("mean") is not None:
            maximum = 4.0 if statistic == "mae" else None
            found.append(Figure(key, str(label), interval["mean"], interval.get("sd"), replicates, group, maximum))
    return found


def section(summaries: Sequence[tuple[str, Mapping[str, Any]]], context: FigureContext) -> ProfileSection:
    rows = [table_row(model=name, slug="", run=None, summary=summary) for name, summary in summaries]
    return ProfileSection(template="amaeval/_profile_section.html", context={"rows": rows, "columns": COLUMNS[1:]})


def report_url(slug: str) -> str:
    return reverse("amaeval:model-report", args=[slug])
