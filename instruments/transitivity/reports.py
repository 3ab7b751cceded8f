"""Results of any subject on the transitivity instrument, and their CSV (no database).

A model's and a respondent's results both come from `subject_results` below (a model's through its stored result,
`selectors`), so the pages show people and models the same way:

    {"alternatives": [codes], "pairs": [[x, y], …], "eps": float,
     "vectors": [{"block", "order", "p": [21 values or null], "missing_pairs": [[x, y], …], "result": RESULT|null}],
     "aggregate": {"of": [[block, order], …], "p": [...], "result": RESULT, "matching": [[block, order], …]} | null,
     "presentation_order_effects": [{"block", "changed": [...]}]}

RESULT is a result of `scoring.transitivity` with principle codes for indices.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from instruments.transitivity.analysis import result_payload
from scoring.transitivity import DEFAULT_EPS, aggregation_report, pairs, presentation_order_effects

MODELS = ("wum", "hcm", "grum")
MODEL_NAMES = {"wum": "WUM", "hcm": "HCM", "grum": "G-RUM"}
ORDERS = ("original", "reversed")  # the presentation orders, `models.PresentationOrder`'s values


def subject_results(
    *, alternatives: Sequence[str], vectors: Mapping[tuple[int, str], Sequence[float | None]], eps: float = DEFAULT_EPS
) -> dict[str, Any]:
    """Test every complete vector of a subject and their aggregate; the shape every report reads.

    ``vectors``: (block, order) → P(x worse than y) for the pairs of `scoring.transitivity.pairs`, None where
    missing. A vector with a missing pair gets no result and stays out of the aggregate.
    """
    codes = list(alternatives)
    pair_codes = [[codes[x], codes[y]] for x, y in pairs(len(codes))]
    keys = sorted(vectors, key=lambda key: (key[0], ORDERS.index(key[1])))
    complete = [key for key in keys if all(value is not None for value in vectors[key])]
    results: dict[tuple[int, str], Any] = {}
    aggregate = None
    if complete:
        report = aggregation_report([list(vectors[key]) for key in complete], len(codes), eps)
        results = dict(zip(complete, report.individuals, strict=True))
        aggregate = {
            "of": [list(key) for key in complete],
            "p": list(report.aggregate_vector),
            "result": result_payload(report.aggregate, codes),
            "matching": [list(complete[i]) for i in report.matching],
        }
    both = sorted({block for block, _ in results if all((block, order) in results for order in ORDERS)})
    effects = presentation_order_effects([results[b, ORDERS[0]] for b in both], [results[b, ORDERS[1]] for b in both])
    return {
        "alternatives": codes,
        "pairs": pair_codes,
        "eps": eps,
        "vectors": [
            {
                "block": block,
                "order": order,
                "p": list(vectors[block, order]),
                "missing_pairs": [pair for pair, p in zip(pair_codes, vectors[block, order], strict=True) if p is None],
                "result": result_payload(results[block, order], codes) if (block, order) in results else None,
            }
            for block, order in keys
        ],
        "aggregate": aggregate,
        "presentation_order_effects": [{"block": both[e.block], "changed": list(e.changed)} for e in effects],
    }


def counts(results: Mapping[str, Any]) -> dict[str, int]:
    """How many complete vectors satisfy each model, and how many are complete."""
    tested = [vector["result"] for vector in results["vectors"] if vector["result"] is not None]
    return {**{model: sum(result[model] for result in tested) for model in MODELS}, "complete": len(tested)}


def ranking_text(order: Sequence[str] | None) -> str:
    return " > ".join(order) if order else ""


CSV_HEADER = ["subject", "block", "order", "wum", "hcm", "grum", "copeland_order", "violating_triads", "grum_distance"]


def results_csv_rows(results: Mapping[str, Any], *, subject: str) -> list[list[str]]:
    """One row per vector and one for the aggregate: verdicts, ranking, triads, distance, every P_xy and the
    result's answer-quality flags (`diagnostic_flags_text`)."""
    rows = [(str(v["block"]), v["order"], v["p"], v["result"]) for v in results["vectors"]]
    if results["aggregate"] is not None:
        rows.append(("aggregate", "", results["aggregate"]["p"], results["aggregate"]["result"]))
    lines = []
    flags = diagnostic_flags_text(results)
    for block, order, vector, result in rows:
        verdicts = [""] * 6
        if result is not None:
            verdicts = [
                *(str(result[model]).lower() for model in MODELS),
                ranking_text(result["copeland_order"]),
                " ".join("-".join(triad) for triad in result["violating_triads"]),
                repr(result["grum_distance"]),
            ]
        probabilities = ("" if v is None else repr(float(v)) for v in vector)
        lines.append([subject, block, order, *verdicts, *probabilities, flags])
    return lines


def diagnostic_flags_text(results: Mapping[str, Any]) -> str:
    """The answer-quality flags of a model's results for the CSV: their codes, "none", or "not checked" for a
    result stored without diagnostics; "" for results that have none (a respondent's)."""
    if "diagnostics" not in results:
        return ""
    if not results["diagnostics"]:
        return "not checked"
    return " ".join(flag["code"] for flag in results["diagnostics"].get("flags") or []) or "none"


def results_csv(many: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """A CSV of one or more subjects' results ((subject, results) pairs), one header with a column per pair."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    pair_codes = many[0][1]["pairs"] if many else []
    writer.writerow(CSV_HEADER + [f"P({x},{y})" for x, y in pair_codes] + ["diagnostic_flags"])
    for subject, results in many:
        writer.writerows(results_csv_rows(results, subject=subject))
    return out.getvalue()
