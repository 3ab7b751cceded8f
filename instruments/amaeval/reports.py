"""AMAeval's reports: the published results in the layout of the paper's Table 3, as rows, CSV and JSON."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from llmruns.models import Result
from llmruns.selectors import result_list
from scoring.amaeval import rank_correlation

COLUMNS = (
    ("model", "Model"),
    ("fidelity", "Fidelity"),
    ("judge", "Judge"),
    ("static_accuracy_t1", "S-Acc Π₁ (%)"),
    ("static_f1_t1", "S-F1 Π₁ (%)"),
    ("mae_t1", "MAE Π₁"),
    ("static_accuracy_t2", "S-Acc Π₂ (%)"),
    ("static_f1_t2", "S-F1 Π₂ (%)"),
    ("dynamic_accuracy_t1", "D-Acc Π₁ (%)"),
    ("dynamic_accuracy_t2", "D-Acc Π₂ (%)"),
    ("ama", "AMA"),
    ("ama_sd", "AMA sd"),
    ("replicates", "Replicates"),
    ("unparseable", "Unparseable ratings"),
)


def table_row(*, model: str, slug: str, run: int | None, summary: Mapping[str, Any]) -> dict[str, Any]:
    """One model's row of Table 3 from its result summary (a part the run left out is None)."""
    static = summary.get("static") or {}
    dynamic = summary.get("dynamic") or {}

    def part(record: Mapping[str, Any], task: str, name: str) -> Any:
        return (record.get(task) or {}).get(name)

    return {
        "model": model,
        "slug": slug,
        "run": run,
        "fidelity": summary.get("fidelity"),
        "judge": dynamic.get("judge") or None,
        "static_accuracy_t1": part(static, "t1", "accuracy"),
        "static_f1_t1": part(static, "t1", "f1"),
        "mae_t1": part(static, "t1", "mae"),
        "static_accuracy_t2": part(static, "t2", "accuracy"),
        "static_f1_t2": part(static, "t2", "f1"),
        "dynamic_accuracy_t1": part(dynamic, "t1", "accuracy"),
        "dynamic_accuracy_t2": part(dynamic, "t2", "accuracy"),
        "ama": summary.get("ama"),
        "ama_sd": summary.get("ama_sd"),
        "replicates": summary.get("replicates"),
        "unparseable": sum(part(static, task, "unparseable") or 0 for task in ("t1", "t2")),
    }


def results_table(results: Sequence[Result] | None = None) -> list[dict[str, Any]]:
    """Every published AMAeval result as a Table 3 row, by model name."""
    results = result_list(instrument="amaeval") if results is None else results
    return [
        table_row(model=result.model.name, slug=result.model.slug, run=result.run_id, summary=result.summary)
        for result in results
    ]


def static_dynamic_correlation(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Spearman's ρ across models between the static mean F1 and the dynamic mean accuracy, over the rows that have
    both, per judge (a judge's scores are comparable only with its own)."""
    by_judge: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        values = [row[name] for name in ("static_f1_t1", "static_f1_t2", "dynamic_accuracy_t1", "dynamic_accuracy_t2")]
        if row["judge"] and all(value is not None for value in values):
            pair = ((values[0] + values[1]) / 2, (values[2] + values[3]) / 2)
            by_judge.setdefault(row["judge"], []).append(pair)
    return {
        judge: {
            "models": len(pairs),
            "spearman": rank_correlation([s for s, _ in pairs], [d for _, d in pairs]),
        }
        for judge, pairs in sorted(by_judge.items())
    }


def results_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["slug", "run", *(name for name, _ in COLUMNS)])
    for row in rows:
        writer.writerow([row["slug"], row["run"], *("" if row[name] is None else row[name] for name, _ in COLUMNS)])
    return out.getvalue()
