"""Public pages of the transitivity instrument: the explanation and the model reports.

The people's questionnaire is the shared one (`surveys.questionnaire_views`, `instruments.transitivity.questionnaire`).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from instruments import registry
from instruments.base import items_language_notice
from instruments.transitivity import selectors
from instruments.transitivity.charts import counts_chart
from instruments.transitivity.models import Block, PresentationOrder, Principle, TransitivityInstrument
from instruments.transitivity.plugin import STUDY
from instruments.transitivity.presenters import report_view
from instruments.transitivity.reports import results_csv
from instruments.transitivity.summary import comparison_rows, summary_csv
from scoring.transitivity import pair_count
from surveys.selectors import study_length

ORDERS = len(PresentationOrder.choices)
METHOD_NAMES = {
    "logprobs": gettext_lazy("first-token log-probabilities"),
    "sampling": gettext_lazy("choice frequencies over repeated samples"),
}


def _design() -> dict[str, int]:
    blocks = Block.objects.count() or 6
    n = len(list(Principle.objects.order_by("index"))) or 7
    return {
        "blocks": blocks,
        "pairs": pair_count(n),
        "orders": ORDERS,
        "choice_sets": blocks * ORDERS,
        "prompts": blocks * ORDERS * pair_count(n),
    }


@require_GET
def about(request: HttpRequest) -> HttpResponse:
    instrument = TransitivityInstrument.objects.first()
    design = _design()
    # The estimate every information sheet gives (surveys.selectors.study_length); None before the items are loaded.
    length = study_length(study=STUDY)
    runs = selectors.summary_get()
    return render(
        request,
        "transitivity/about.html",
        {
            "principles": list(Principle.objects.order_by("index")),
            "design": design,
            "items_language": items_language_notice(registry.instrument("transitivity").identity),
            "question": "Choose the situation you think is morally worse.",
            "source": instrument.source if instrument else "",
            "report_count": selectors.models_with_results_count(),
            "summary_rows": comparison_rows(selectors.summary_get(source="paper"), runs),
            "runs_summary": runs,
            "questionnaire_minutes": length.minutes if length else None,
        },
    )


# --- model reports ---------------------------------------------------------------------------------------------


@require_GET
def models(request: HttpRequest) -> HttpResponse:
    rows = []
    for results in selectors.model_results_list():
        view = report_view(results, subject=results["model"]["name"])
        url = reverse("transitivity:model-report", args=[results["model"]["slug"]])
        # None: no answer-quality diagnostics (published before the checks existed, not yet re-scored).
        flags = results["diagnostics"].get("flags", []) if results.get("diagnostics") else None
        rows.append(
            {**results["model"], "url": url, "counts": view["counts"], "aggregate": view["aggregate"], "flags": flags}
        )
    choice_sets = _design()["choice_sets"]
    chart = counts_chart(rows=[(row["name"], row["counts"], choice_sets) for row in rows])
    return render(
        request, "transitivity/models.html", {"rows": rows, "choice_sets": choice_sets, "counts_chart": chart}
    )


def _results_or_404(slug: str) -> dict[str, Any]:
    results = selectors.model_results_get(slug=slug)
    if results is None:
        raise Http404("No transitivity run of this model.")
    return results


@require_GET
def model_report(request: HttpRequest, slug: str) -> HttpResponse:
    results = _results_or_404(slug)
    run = results["run"]
    state = run["status"]
    if state != "finished":
        state = _("%(status)s, %(done)s of %(total)s items") % {
            "status": state,
            "done": run["items_done"],
            "total": run["items_total"],
        }
    return render(
        request,
        "transitivity/model_report.html",
        {
            "subject": results["model"]["name"],
            "description": _("Run %(id)s (%(state)s); choice probabilities from %(method)s.")
            % {"id": run["id"], "state": state, "method": METHOD_NAMES[run["method"]]},
            "view": report_view(results, subject=results["model"]["name"]),
            "diagnostics": results.get("diagnostics") or {},
            "csv_url": reverse("transitivity:model-report-csv", args=[slug]),
            "json_url": reverse("transitivity:model-report-json", args=[slug]),
        },
    )


def _attachment(response: HttpResponse, name: str) -> HttpResponse:
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    response["Content-Disposition"] = f'attachment; filename="{safe}"'
    return response


@require_GET
def model_report_json(request: HttpRequest, slug: str) -> HttpResponse:
    results = _results_or_404(slug)
    return _attachment(JsonResponse(results, json_dumps_params={"indent": 2}), f"transitivity-{slug}.json")


@require_GET
def model_report_csv(request: HttpRequest, slug: str) -> HttpResponse:
    body = results_csv([(slug, _results_or_404(slug))])
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), f"transitivity-{slug}.csv")


@require_GET
def models_json(request: HttpRequest) -> HttpResponse:
    body = {"models": selectors.model_results_list()}
    return _attachment(JsonResponse(body, json_dumps_params={"indent": 2}), "transitivity-models.json")


@require_GET
def models_csv(request: HttpRequest) -> HttpResponse:
    body = results_csv([(results["model"]["slug"], results) for results in selectors.model_results_list()])
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), "transitivity-models.csv")


def _summary_or_400(request: HttpRequest) -> dict[str, Any] | HttpResponse:
    from virtuemap_site.errors import ApplicationError

    try:
        return selectors.summary_get(source=request.GET.get("source", "runs"), models=request.GET.get("models"))
    except ApplicationError as error:
        return HttpResponseBadRequest(error.message, content_type="text/plain; charset=utf-8")


@require_GET
def summary_json(request: HttpRequest) -> HttpResponse:
    """The summary statistics as the API gives them (`?source=paper|runs`, `&models=a,b`), as a download."""
    payload = _summary_or_400(request)
    if isinstance(payload, HttpResponse):
        return payload
    response = JsonResponse(payload, json_dumps_params={"indent": 2})
    return _attachment(response, f"transitivity-summary-{payload['source']}.json")


@require_GET
def summary_csv_download(request: HttpRequest) -> HttpResponse:
    payload = _summary_or_400(request)
    if isinstance(payload, HttpResponse):
        return payload
    response = HttpResponse(summary_csv(payload), content_type="text/csv; charset=utf-8")
    return _attachment(response, f"transitivity-summary-{payload['source']}.csv")
