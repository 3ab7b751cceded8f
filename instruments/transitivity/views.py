"""Public pages of the transitivity instrument: the explanation, the model reports and the people's questionnaire.

The questionnaire follows the study's consent flow: the information sheet and an explicit box; whoever does not
agree takes no part and has nothing stored. The session holds only the respondent's UUID, and only after consent.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from instruments.transitivity import questionnaire, selectors
from instruments.transitivity.charts import counts_chart
from instruments.transitivity.models import Block, PresentationOrder, TransitivityInstrument
from instruments.transitivity.presenters import report_view
from instruments.transitivity.reports import results_csv, subject_results
from scoring.transitivity import pair_count
from surveys import forms as survey_forms
from surveys import selectors as survey_selectors
from surveys import services as survey_services
from surveys.models import Respondent, Study
from virtuemap_site.abuse import consent_rate_limited, network_bucket, submit_rate_limited
from virtuemap_site.errors import ApplicationError
from virtuemap_site.request_guards import ascii_int

ORDERS = len(PresentationOrder.choices)
SESSION_KEY = "transitivity_respondent"
METHOD_NAMES = {"logprobs": "first-token log-probabilities", "sampling": "choice frequencies over repeated samples"}


def _design() -> dict[str, int]:
    blocks = Block.objects.count() or 6
    n = len(questionnaire.principle_list()) or 7
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
    trials = design["pairs"] * ORDERS * settings.TRANSITIVITY_REPETITIONS
    return render(
        request,
        "transitivity/about.html",
        {
            "principles": questionnaire.principle_list(),
            "design": design,
            "question": "Choose the situation you think is morally worse.",
            "source": instrument.source if instrument else "",
            "report_count": selectors.models_with_results_count(),
            "questionnaire_trials": trials,
            # About 6 seconds a choice: two one-sentence situations.
            "questionnaire_minutes": max(1, round(trials * 6 / 60)),
        },
    )


# --- model reports ---------------------------------------------------------------------------------------------


@require_GET
def models(request: HttpRequest) -> HttpResponse:
    rows = []
    for results in selectors.model_results_list():
        view = report_view(results, subject=results["model"]["name"])
        url = reverse("transitivity:model-report", args=[results["model"]["slug"]])
        rows.append({**results["model"], "url": url, "counts": view["counts"], "aggregate": view["aggregate"]})
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
        state += f", {run['items_done']} of {run['items_total']} items"
    return render(
        request,
        "transitivity/model_report.html",
        {
            "subject": results["model"]["name"],
            "description": f"Run {run['id']} ({state}); choice probabilities from {METHOD_NAMES[run['method']]}.",
            "view": report_view(results, subject=results["model"]["name"]),
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


# --- the people's questionnaire ---------------------------------------------------------------------------------


def _respondent(request: HttpRequest) -> Respondent | None:
    respondent_id = request.session.get(SESSION_KEY)
    if not respondent_id:
        return None
    return survey_selectors.respondent_by_id(respondent_id=respondent_id, study=Study.TRANSITIVITY)


def _requested_block(request: HttpRequest) -> int | None:
    value = request.GET.get("block") or request.POST.get("block")
    if not value:
        return None
    block = ascii_int(value)
    if block is None:
        raise BadRequest("block must be a block number.")
    return block


@require_http_methods(["GET", "POST"])
@consent_rate_limited
def questionnaire_start(request: HttpRequest) -> HttpResponse:
    """Information, consent, and the start of a session; declining stores nothing."""
    respondent = _respondent(request)
    session = questionnaire.pairwise_session_get(respondent=respondent)
    if session is not None:
        return redirect(
            "transitivity:questionnaire-results" if session.is_complete else "transitivity:questionnaire-item"
        )
    text = survey_selectors.consent_text_current(study=Study.TRANSITIVITY)
    form = survey_forms.ConsentForm(request.POST or None, request=request)
    design = _design()
    if request.method == "POST":
        if "decline" in request.POST:
            return render(request, "transitivity/questionnaire_declined.html")
        if text is None or not Block.objects.exists():
            form.add_error(None, "The questionnaire is not ready yet; please come back later.")
        elif form.is_valid() and not form.cleaned_data["agree"]:
            form.add_error("agree", "Please tick the box to agree, or choose not to take part.")
        elif form.is_valid():
            try:
                session = questionnaire.pairwise_consent_start(
                    consent_version=text.version,
                    panel=form.panel(),
                    block=_requested_block(request),
                    suspicion=form.suspicion(),
                    network_bucket=network_bucket(request),
                )
            except ApplicationError as error:
                form.add_error(None, error.message)
            else:
                request.session.cycle_key()
                request.session[SESSION_KEY] = str(session.respondent_id)
                return redirect("transitivity:questionnaire-item")
    trials = design["pairs"] * ORDERS * settings.TRANSITIVITY_REPETITIONS
    return render(
        request,
        "transitivity/questionnaire_start.html",
        {
            "text": text,
            "form": form,
            "design": design,
            "repetitions": settings.TRANSITIVITY_REPETITIONS,
            "trials": trials,
            "block_number": _requested_block(request),
            "ready": text is not None and Block.objects.exists(),
        },
        status=400 if request.method == "POST" else 200,
    )


def _session_or_start(request: HttpRequest):
    session = questionnaire.pairwise_session_get(respondent=_respondent(request))
    return session, (redirect("transitivity:questionnaire-start") if session is None else None)


@require_http_methods(["GET", "POST"])
@submit_rate_limited
def questionnaire_item(request: HttpRequest) -> HttpResponse:
    """The next unanswered pair; a POST stores its answer once and moves on (refresh and back are harmless)."""
    session, away = _session_or_start(request)
    if away:
        return away
    error = None
    if request.method == "POST":
        position = request.POST.get("position", "")
        situation = request.POST.get("situation", "")
        try:
            questionnaire.pairwise_answer_submit(
                session=session,
                position=ascii_int(position) or position,
                situation=int(situation) if situation in ("1", "2") else situation,
            )
        except ApplicationError as problem:
            if problem.status != 409:
                error = problem.message
        if error is None:
            # Post/redirect/get: a reload of the next page never re-submits this answer.
            return redirect("transitivity:questionnaire-item")
    position = questionnaire.pairwise_next_position(session=session)
    if position is None:
        return redirect("transitivity:questionnaire-results")
    trial = questionnaire.pairwise_trial(session=session, position=position)
    return render(
        request,
        "transitivity/questionnaire_item.html",
        {"trial": trial, "answered": position - 1, "error": error},
        status=400 if error else 200,
    )


@require_GET
def questionnaire_results(request: HttpRequest) -> HttpResponse:
    """The respondent's verdicts per presentation order, next to the models' on the same block."""
    session, away = _session_or_start(request)
    if away:
        return away
    block = session.blocks[0]
    person = subject_results(
        alternatives=[p.code for p in questionnaire.principle_list()],
        vectors=questionnaire.pairwise_choice_vectors(session=session),
    )
    comparison = []
    for results in selectors.model_results_list():
        on_block = {**results, "vectors": [v for v in results["vectors"] if v["block"] == block]}
        if on_block["vectors"]:
            url = reverse("transitivity:model-report", args=[results["model"]["slug"]])
            view = report_view(on_block, subject=results["model"]["name"])
            comparison.append({"name": results["model"]["name"], "url": url, "view": view})
    next_position = questionnaire.pairwise_next_position(session=session)
    respondent = session.respondent
    code = (
        survey_services.respondent_outcome_code(respondent=respondent)
        if respondent.panel and session.is_complete
        else None
    )
    return render(
        request,
        "transitivity/questionnaire_results.html",
        {
            "session": session,
            "block_number": block,
            "view": report_view(person, subject="Your choices"),
            "comparison": comparison,
            "answered": len(session.sequence) if next_position is None else next_position - 1,
            "total": len(session.sequence),
            "completion_code": code,
        },
    )


@require_http_methods(["GET", "POST"])
def questionnaire_withdraw(request: HttpRequest) -> HttpResponse:
    """Delete the respondent and every answer they gave."""
    respondent = _respondent(request)
    if request.method == "POST":
        if respondent is not None:
            survey_services.respondent_withdraw(respondent=respondent)
        request.session.pop(SESSION_KEY, None)
        return render(request, "transitivity/questionnaire_withdrawn.html", {"had_data": respondent is not None})
    return render(request, "transitivity/questionnaire_withdraw.html", {"respondent": respondent})
