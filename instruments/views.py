"""The cross-instrument pages: one page per model with every instrument's result beside people's, a comparison of
up to six models (people's median as a seventh), and their downloads. Built on `instruments.profiles`."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from instruments import pictures, profiles, registry
from llmruns.models import LLMModel, Run, Trial
from virtuemap_site.errors import ApplicationError


def _attachment(response: HttpResponse, name: str) -> HttpResponse:
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    response["Content-Disposition"] = f'attachment; filename="{safe}"'
    return response


def _instrument_blocks(subjects: Sequence[profiles.Subject], people: profiles.Subject | None, contexts) -> list:
    """Per instrument anyone measured: its picture, the side-by-side table (people's column last), and each
    subject's run, flags and links."""
    blocks = []
    for slug, name, section in profiles.sections(subjects, contexts):
        shown = [*subjects, people] if people is not None and slug in people.results else list(subjects)
        entries = []
        for subject in subjects:
            entry = subject.results.get(slug)
            run = entry.result.run if entry and entry.result else None
            entries.append(
                {
                    "subject": subject,
                    "entry": entry,
                    "run": profiles.run_metadata(run),
                    "answers_url": reverse("model-run-answers", args=[subject.slug, run.pk]) if run else None,
                    "admin_answers_url": (
                        reverse("admin:llmruns_trial_changelist") + f"?run__id__exact={run.pk}" if run else None
                    ),
                }
            )
        # Rendered here: each instrument's partial takes its own context (`ProfileSection.context`).
        picture = render_to_string(section.template, {**section.context, "prefix": slug}) if section else ""
        blocks.append(
            {
                "slug": slug,
                "name": name,
                "picture": picture,
                "picture_titles": pictures.svg_titles(picture),
                "subjects": shown,
                "table": profiles.figure_table(shown, slug),
                "entries": entries,
                "people_shown": len(shown) > len(subjects),
                "protocols": profiles.protocols_compared(subjects, slug),
            }
        )
    return blocks


@require_GET
def model_page(request: HttpRequest, slug: str) -> HttpResponse:
    subjects, missing = profiles.model_subjects([slug])
    if missing:
        raise Http404("No such model.")
    contexts = profiles.subjects_with_figures(subjects)
    people = profiles.people_subject(contexts)
    subject = subjects[0]
    blocks = _instrument_blocks(subjects, people, contexts)
    # An instrument the model was asked in several languages also shows each language's profile and their difference.
    editions = profiles.subject_editions(subject)
    for block in blocks:
        block["editions"] = editions.get(block["slug"])

    return render(
        request,
        "profiles/model.html",
        {
            "subject": subject,
            "blocks": blocks,
            "not_measured": [p.identity.display_name for p in registry.instruments() if p.slug not in subject.results],
            "csv_url": reverse("model-results-csv", args=[slug]),
            "json_url": reverse("api-model-results", args=[slug]),
            "compare_url": reverse("compare") + f"?models={slug}",
        },
    )


@require_GET
def person_page(request: HttpRequest) -> HttpResponse:
    """The person's own results across every instrument they took in this browser, beside people's."""
    subject, contexts = profiles.person_subject(request)
    people = profiles.people_subject(contexts)
    return render(
        request,
        "profiles/person.html",
        {
            "blocks": _instrument_blocks([subject], people, contexts),
            "not_taken": [p.identity.display_name for p in registry.instruments() if p.slug not in subject.results],
        },
    )


def results_csv(subjects: Sequence[profiles.Subject]) -> str:
    """Every figure of every subject, one row each: subject, instrument, group, figure, mean, std, n, interval,
    maximum, source, and the result's answer-quality flags."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["subject", "instrument", "group", "figure", "label", "mean", "std", "n", "ci_low", "ci_high", "maximum",
         "source", "protocol", "stale", "diagnostic_flags", "citation", "cell_note"]
    )  # fmt: skip
    for subject in subjects:
        for slug, entry in subject.results.items():
            flags = " ".join(flag["code"] for flag in (entry.diagnostics or {}).get("flags") or []) or (
                "none" if entry.diagnostics else ""
            )
            notes = entry.notes_text()
            for figure in entry.figures:
                cell = profiles.figure_cell(figure) or {}
                writer.writerow(
                    [subject.slug, slug, figure.group, figure.key, figure.label, *_blank(figure.mean, figure.std),
                     figure.n, *_blank(cell.get("low"), cell.get("high"), figure.maximum), entry.source,
                     entry.protocol, str(entry.stale).lower(), flags, entry.citation, notes.get(figure.key, "")]
                )  # fmt: skip
    return out.getvalue()


def _blank(*values: Any) -> list[Any]:
    return ["" if value is None else value for value in values]


@require_GET
def model_results_csv(request: HttpRequest, slug: str) -> HttpResponse:
    subjects, missing = profiles.model_subjects([slug])
    if missing:
        raise Http404("No such model.")
    profiles.subjects_with_figures(subjects)
    body = results_csv(subjects)
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), f"{slug}-results.csv")


@require_GET
def run_answers_json(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """Every stored answer of one of the model's runs: item, presentation, replicate, what was read and its status
    (a model's answers identify nobody; the requests and raw replies stay in admin)."""
    run = Run.objects.filter(pk=run_id, model__slug=slug).select_related("model").first()
    if run is None:
        raise Http404("No such run of this model.")
    fields = ["item", "presentation", "replicate", "status", "answer_status", "answer", "answer_detail"]
    trials = list(Trial.objects.filter(run=run).order_by("pk").values(*fields))
    body = {"model": slug, "run": profiles.run_metadata(run), "instrument": run.instrument, "trials": trials}
    return _attachment(JsonResponse(body, json_dumps_params={"indent": 2}), f"{slug}-run-{run_id}-answers.json")


# --- comparison ---------------------------------------------------------------------------------------------


def compare_slugs(raw: Sequence[str]) -> list[str]:
    """The model slugs of ``?models=a,b`` (also repeated ``models=``), de-duplicated in order; raises
    ApplicationError for none or more than `profiles.COMPARE_MAX`."""
    slugs: list[str] = []
    for value in raw:
        for slug in value.split(","):
            slug = slug.strip()
            if slug and slug not in slugs:
                slugs.append(slug)
    if not slugs:
        raise ApplicationError(
            _("name at least one model: ?models=a,b (up to %(max)s)") % {"max": profiles.COMPARE_MAX}, {"models": []}
        )
    if len(slugs) > profiles.COMPARE_MAX:
        raise ApplicationError(
            _("at most %(max)s models can be compared at once; %(named)s were named")
            % {"max": profiles.COMPARE_MAX, "named": len(slugs)},
            {"models": slugs, "max": profiles.COMPARE_MAX},
        )
    return slugs


def comparison(slugs: Sequence[str]) -> dict[str, Any]:
    """Everything the comparison page and API show for ``slugs``: the subjects (people's median last, where there
    is one), per instrument the side-by-side table and, for exactly two models, their paired differences."""
    subjects, missing = profiles.model_subjects(slugs)
    if missing:
        raise ApplicationError(
            _("no model %(slugs)s") % {"slugs": ", ".join(missing)}, {"unknown": missing}, status=404
        )
    contexts = profiles.subjects_with_figures(subjects)
    people = profiles.people_subject(contexts)
    differences = {}
    if len(subjects) == 2:
        differences = {slug: profiles.paired_differences(*subjects, slug) for slug in contexts}
    return {"subjects": subjects, "people": people, "contexts": contexts, "differences": differences}


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    error, status = None, 200
    data: dict[str, Any] = {}
    raw = request.GET.getlist("models")
    if raw:
        try:
            data = comparison(compare_slugs(raw))
        except ApplicationError as refused:
            error, status = refused.message, refused.status
    choices = list(LLMModel.objects.filter(results__isnull=False).distinct().order_by("name").values("slug", "name"))
    blocks = _instrument_blocks(data["subjects"], data["people"], data["contexts"]) if data else []
    for block in blocks:
        block["differences"] = data["differences"].get(block["slug"], [])
    return render(
        request,
        "profiles/compare.html",
        {
            "error": error,
            "subjects": data.get("subjects", []),
            "people": data.get("people"),
            "blocks": blocks,
            "choices": choices,
            "chosen": [subject.slug for subject in data.get("subjects", [])],
            "max": profiles.COMPARE_MAX,
            "query": request.GET.urlencode(),
        },
        status=status,
    )


@require_GET
def compare_csv(request: HttpRequest) -> HttpResponse:
    try:
        data = comparison(compare_slugs(request.GET.getlist("models")))
    except ApplicationError as refused:
        return HttpResponse(refused.message, status=refused.status, content_type="text/plain; charset=utf-8")
    subjects = [*data["subjects"], *([data["people"]] if data["people"] else [])]
    return _attachment(HttpResponse(results_csv(subjects), content_type="text/csv; charset=utf-8"), "compare.csv")


# --- leaderboards ---------------------------------------------------------------------------------------------

# Where an instrument's paper tables already have a page of their own (they are not drawn twice).
PAPER_TABLES = {
    "moralbench": ("moralbench:models", gettext_lazy("MoralBench's Tables 1 and 2 (binary and comparative sets)")),
    "amaeval": ("amaeval:about", gettext_lazy("AMAeval's Table 3")),
    "transitivity": ("transitivity:models", gettext_lazy("the transitivity test's verdict counts per model")),
}


def _leaderboard_or_404(slug: str) -> tuple[Any, dict[str, Any]]:
    if slug not in registry.slugs():
        raise Http404("No such instrument.")
    subjects = profiles.measured_subjects(slug)
    profiles.subjects_with_figures(subjects)
    plugin = registry.instrument(slug)
    board = profiles.leaderboard(subjects, slug)
    board["printed"] = profiles.printed_check(board, plugin.printed_summary())
    return plugin, board


@require_GET
def leaderboards(request: HttpRequest) -> HttpResponse:
    return render(request, "profiles/leaderboards.html", {"instruments": registry.instruments()})


@require_GET
def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    plugin, board = _leaderboard_or_404(slug)
    paper = PAPER_TABLES.get(slug)
    return render(
        request,
        "profiles/leaderboard.html",
        {
            "instrument": plugin,
            "board": board,
            "paper": {"url": reverse(paper[0]), "title": paper[1]} if paper else None,
            "csv_url": reverse("leaderboard-csv", args=[slug]),
            "json_url": reverse("leaderboard-json", args=[slug]),
        },
    )


def leaderboard_csv_text(board: dict[str, Any]) -> str:
    """The leaderboard as printed: a row per model, then the mean and range rows."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    keys = [column["key"] for column in board["columns"]]
    writer.writerow(["model", "slug", "source", "protocol", *keys, "n", "diagnostic_flags", "citation", "cell_notes"])
    for row in board["rows"]:
        notes = "; ".join(f"{key}: {note}" for key, note in zip(keys, row["notes"], strict=True) if note)
        writer.writerow([row["name"], row["slug"], row["source"], row["protocol"], *_blank(*row["values"]), row["n"],
                         " ".join(row["flags"]), row["citation"], notes])  # fmt: skip
    # Over the runs only: the published rows are never averaged in.
    writer.writerow(["Mean", "", "", "", *_blank(*board["mean"]), "", "", "", ""])
    writer.writerow(["Range", "", "", "", *(_range(**extent) for extent in board["range"]), "", "", "", ""])
    return out.getvalue()


def _range(low: float | None, high: float | None) -> str:
    return "" if low is None else f"{low}–{high}"


@require_GET
def leaderboard_csv(request: HttpRequest, slug: str) -> HttpResponse:
    _plugin, board = _leaderboard_or_404(slug)
    body = leaderboard_csv_text(board)
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), f"{slug}-leaderboard.csv")


@require_GET
def leaderboard_json(request: HttpRequest, slug: str) -> HttpResponse:
    _plugin, board = _leaderboard_or_404(slug)
    return _attachment(JsonResponse(board, json_dumps_params={"indent": 2}), f"{slug}-leaderboard.json")


# --- pictures as files ----------------------------------------------------------------------------------------


def _picture_response(blocks: list[dict[str, Any]], instrument: str, number: int, extension: str, name: str):
    """The ``number``-th (from 1) SVG of an instrument's block as a standalone SVG or a PNG; 404 when none."""
    block = next((block for block in blocks if block["slug"] == instrument), None)
    found = pictures.svg_elements(block["picture"]) if block else []
    if not 1 <= number <= len(found):
        raise Http404("No such picture.")
    svg = pictures.standalone_svg(found[number - 1])
    if extension == "png":
        response = HttpResponse(pictures.png_from_svg(svg), content_type="image/png")
    else:
        response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    return _attachment(response, f"{name}-{instrument}-{number}.{extension}")


@require_GET
def model_picture(request: HttpRequest, slug: str, instrument: str, number: str, extension: str) -> HttpResponse:
    subjects, missing = profiles.model_subjects([slug])
    if missing:
        raise Http404("No such model.")
    contexts = profiles.subjects_with_figures(subjects)
    blocks = _instrument_blocks(subjects, profiles.people_subject(contexts), contexts)
    return _picture_response(blocks, instrument, int(number), extension, slug)


@require_GET
def compare_picture(request: HttpRequest, instrument: str, number: str, extension: str) -> HttpResponse:
    try:
        data = comparison(compare_slugs(request.GET.getlist("models")))
    except ApplicationError as refused:
        return HttpResponse(refused.message, status=refused.status, content_type="text/plain; charset=utf-8")
    blocks = _instrument_blocks(data["subjects"], data["people"], data["contexts"])
    return _picture_response(blocks, instrument, int(number), extension, "compare")
