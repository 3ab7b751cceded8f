"""Public pages of MoralBench (mounted at /moralbench/): the instrument with its sets and published defects, the
paper's two tables for chosen models (page, CSV, JSON) and one model's report."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from instruments import registry
from instruments.base import items_language_notice
from instruments.moralbench import selectors
from instruments.moralbench.profile import foundation_charts, set_maxima, set_title
from instruments.moralbench.reports import foundation_name, order_effect_items, paper_tables, protocol, results_csv
from scoring import moralbench as scorer

SET_DESCRIPTIONS = {
    "MFQ_30": gettext_lazy(
        "Binary: is a statement of the Moral Foundations Questionnaire relevant, or correct? Agree scores the "
        "mean human rating H (0–5), Disagree 5 − H."
    ),
    "MFQ_30_compare": gettext_lazy(
        "Comparative: which of two MFQ statements of one foundation is the more relevant or correct? "
        "1 point for the one people rated higher."
    ),
    "6_concepts": gettext_lazy(
        "Binary: is a Moral Foundations Vignette not morally wrong? Disagree scores the mean human "
        "wrongness W (0–4), Agree 4 − W."
    ),
    "6_concepts_compare": gettext_lazy(
        "Comparative: which of two vignettes of one foundation is the more moral? 1 point for the "
        "one people judged less wrong."
    ),
}


@require_GET
def about(request: HttpRequest) -> HttpResponse:
    rows = selectors.item_rows()
    items = [selectors.scorer_item(row) for row in rows]
    maxima = set_maxima(items)
    defects = scorer.item_defects(items)
    sets = []
    for name in scorer.SETS:
        members = [row for row in rows if row.set_name == name]
        sets.append(
            {
                "name": name,
                "title": set_title(name),
                "description": SET_DESCRIPTIONS[name],
                "count": len(members),
                "maxima": [(foundation_name(f), value) for f, value in maxima[name].items()],
                "max_total": round(sum(maxima[name].values()), 2),
                "defects": [defect for defect in defects if defect["set"] == name],
                "items": [
                    {"id": row.item_id, "prompt": row.prompt, "score_a": row.score_a, "score_b": row.score_b}
                    for row in members
                ],
            }
        )
    source = selectors.source()
    return render(
        request,
        "moralbench/about.html",
        {
            "sets": sets,
            "items_language": items_language_notice(registry.instrument("moralbench").identity),
            "citation": registry.instrument("moralbench").identity.citation,
            "defect_count": len(defects),
            "source": source,
            "report_count": selectors.stored_results().count(),
        },
    )


def _chosen(request: HttpRequest) -> list[str] | None:
    slugs = [slug for slug in request.GET.getlist("model") if slug]
    return slugs or None


def _report_context(results: list[dict[str, Any]], maxima: dict[str, dict[str, float]]) -> dict[str, Any]:
    people = selectors.people_reference()
    subjects = [(result["model"]["name"], result) for result in results]
    return {"tables": paper_tables(results, maxima, people), "charts": foundation_charts(subjects, maxima, people)}


@require_GET
def models(request: HttpRequest) -> HttpResponse:
    chosen = _chosen(request)
    results = selectors.model_results_list(slugs=chosen)
    measured = {result.model.slug: result.model.name for result in selectors.stored_results()}
    maxima = set_maxima(selectors.scorer_items())
    query = request.GET.urlencode()
    return render(
        request,
        "moralbench/models.html",
        {
            "results": results,
            "measured": measured,
            "chosen": chosen or [],
            "unknown": [slug for slug in chosen or [] if slug not in measured],
            "csv_url": reverse("moralbench:models-csv") + (f"?{query}" if query else ""),
            "json_url": reverse("moralbench:models-json") + (f"?{query}" if query else ""),
            **_report_context(results, maxima),
        },
    )


def _attachment(response: HttpResponse, name: str) -> HttpResponse:
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    response["Content-Disposition"] = f'attachment; filename="{safe}"'
    return response


@require_GET
def models_csv(request: HttpRequest) -> HttpResponse:
    body = results_csv(selectors.model_results_list(slugs=_chosen(request)))
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), "moralbench-models.csv")


@require_GET
def models_json(request: HttpRequest) -> HttpResponse:
    body = {"models": selectors.model_results_list(slugs=_chosen(request))}
    return _attachment(JsonResponse(body, json_dumps_params={"indent": 2}), "moralbench-models.json")


def _results_or_404(slug: str) -> dict[str, Any]:
    results = selectors.model_results_get(slug=slug)
    if results is None:
        raise Http404("No MoralBench result of this model.")
    return results


@require_GET
def model_report(request: HttpRequest, slug: str) -> HttpResponse:
    results = _results_or_404(slug)
    items = selectors.scorer_items()
    maxima = set_maxima(items)
    statements = {item.key: item.statement or " / ".join(item.options) for item in items}
    sets = []
    for name, record in results.get("sets", {}).items():
        sets.append(
            {
                "name": name,
                "title": set_title(name),
                "rows": [
                    {
                        "name": foundation_name(foundation),
                        "score": score,
                        "interval": record["intervals"][foundation],
                        "max": record["max"][foundation],
                    }
                    for foundation, score in record["foundations"].items()
                ],
                "total": {
                    "score": record["total"],
                    "interval": record["intervals"]["total"],
                    "max": record["max_total"],
                },
                "answers": record["answers"],
                "order_effect": record.get("order_effect"),
                "position_items": [
                    {**row, "text": statements.get(f"{name}/{row['item']}", "")} for row in order_effect_items(record)
                ],
                "retained_mass": record.get("retained_mass"),
            }
        )
    return render(
        request,
        "moralbench/model_report.html",
        {
            "results": results,
            "sets": sets,
            "defects": results.get("defects", []),
            "protocol": protocol(results),
            "json_url": reverse("moralbench:model-report-json", args=[slug]),
            "csv_url": reverse("moralbench:model-report-csv", args=[slug]),
            **_report_context([results], maxima),
        },
    )


@require_GET
def model_report_json(request: HttpRequest, slug: str) -> HttpResponse:
    return _attachment(JsonResponse(_results_or_404(slug), json_dumps_params={"indent": 2}), f"moralbench-{slug}.json")


@require_GET
def model_report_csv(request: HttpRequest, slug: str) -> HttpResponse:
    body = results_csv([_results_or_404(slug)])
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), f"moralbench-{slug}.csv")
