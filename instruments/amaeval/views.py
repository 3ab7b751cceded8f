"""Public pages of the AMAeval instrument (mounted at /amaeval/): the instrument with every model's Table 3 row, and
one model's report."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from instruments import registry
from instruments.amaeval import reports, selectors
from instruments.amaeval.items import FEW_SHOT, SEEN_SCENARIOS
from instruments.amaeval.plugin import summary_table
from instruments.amaeval.questionnaire import ITEMS_PER_TASK
from instruments.base import items_language_notice
from llmruns.models import Result, Trial


def _attachment(response: HttpResponse, name: str) -> HttpResponse:
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
def about(request: HttpRequest) -> HttpResponse:
    report = reports.report()
    rows = report["models"]
    return render(
        request,
        "amaeval/about.html",
        {
            "items_language": items_language_notice(registry.instrument("amaeval").identity),
            "counts": selectors.dataset_counts(),
            "values": selectors.moral_values(),
            "few_shot": FEW_SHOT,
            "columns": reports.COLUMNS,
            "rows": rows,
            "judges": sorted({row["judge"] for row in rows if row["judge"]}),
            "correlations": report["static_dynamic_spearman"],
            "paper_correlation": report["paper_static_dynamic_spearman"],
            "people": report["people"],
            "agreement": report["agreement"],
            "items_per_task": ITEMS_PER_TASK,
            "seen_scenarios": SEEN_SCENARIOS,
        },
    )


@require_GET
def models_csv(request: HttpRequest) -> HttpResponse:
    body = reports.results_csv(reports.results_table(), reports.people_row(reports.public_ratings()))
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), "amaeval-models.csv")


@require_GET
def models_json(request: HttpRequest) -> HttpResponse:
    return _attachment(JsonResponse(reports.report(), json_dumps_params={"indent": 2}), "amaeval-models.json")


@require_GET
def model_report(request: HttpRequest, slug: str) -> HttpResponse:
    result = Result.objects.filter(instrument="amaeval", model__slug=slug).select_related("model", "run").first()
    if result is None:
        raise Http404("No AMAeval result for this model.")
    summary = result.summary
    chain = None
    if result.run is not None:
        chain = (
            Trial.objects.filter(run=result.run, item__startswith="gen/", answer_status="valid")
            .order_by("pk")
            .values("item", "replicate", "answer")
            .first()
        )
    row = reports.table_row(model=result.model.name, slug=slug, run=result.run_id, summary=summary)
    return render(
        request,
        "amaeval/model_report.html",
        {
            "result": result,
            "summary": summary,
            "lines": summary_table(summary),
            "row": row,
            "single_row": [row],
            "seen_scenarios": SEEN_SCENARIOS,
            "columns": reports.COLUMNS[3:],
            "chain": chain,
        },
    )
