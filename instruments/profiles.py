"""A subject's results across every instrument: what a model's page, the comparison, the leaderboards and their API
show. The platform's part: it knows instruments only through the contract (`figure_context`, `profile_figures`,
`profile_section`, `report_url`) and the registry, and reads the one result store.

A page reads the models and their results in two queries, then each instrument's `figure_context` once (names,
people's distributions, maxima) whatever the number of models shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import get_language_info
from django.utils.translation import gettext as _

from instruments import registry
from instruments.base import Figure, FigureContext, Instrument, PeopleFigure, ProfileSection
from llmruns.models import LLMModel, Result, Run
from llmruns.results import CurrentDependencies, result_is_stale
from scoring.compare import Sample, column_summary, mean_interval, sample_differences
from surveys.questionnaire import person_questionnaire_summary

# At most this many subjects on one comparison (the limit: the overlaid pictures stay readable).
COMPARE_MAX = 6
PEOPLE = "people"


def run_metadata(run: Run | None) -> dict[str, Any] | None:
    """What a result's run was: provider, request parameters, seed, instrument version, language, dates, cost."""
    if run is None:
        return None
    params = run.request_params or {}
    return {
        "id": run.pk,
        "status": run.status,
        "provider": params.get("provider", ""),
        "model_id": params.get("model_id", ""),
        "parameters": {
            name: params[name] for name in ("temperature", "max_tokens", "top_logprobs") if params.get(name) is not None
        },
        "plan": run.plan,
        "seed": run.seed,
        "instrument_version": run.instrument_version,
        "language": run.language,
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "cost": run.cost_total,
        "trials": run.trials_total,
        "trials_done": run.trials_done,
    }


@dataclass
class InstrumentResult:
    """One instrument's result of one subject, as the pages and the API show it."""

    instrument: str
    name: str
    figures: list[Figure]
    source: str
    result: Result | None = None
    summary: Mapping[str, Any] | None = None  # the result's, or a person's computed from their answers
    stale: bool = False
    diagnostics: Mapping[str, Any] = field(default_factory=dict)
    report_url: str | None = None

    def record(self) -> dict[str, Any]:
        result = self.result
        return {
            "instrument": self.instrument,
            "name": self.name,
            "source": self.source,
            "language": result.language if result else None,
            "instrument_version": result.instrument_version if result else None,
            "stale": self.stale,
            "figures": [figure.record() for figure in self.figures],
            "summary": self.summary,
            "diagnostics": dict(self.diagnostics),
            "run": run_metadata(result.run) if result else None,
            "report_url": self.report_url,
        }


@dataclass
class Subject:
    """A model (or people's median) with its results by instrument slug."""

    slug: str
    name: str
    results: dict[str, InstrumentResult]
    model: LLMModel | None = None
    # Every published language of each instrument (instrument slug → language → result), the one in ``results``
    # among them: a model asked an instrument in English and in Chinese has two.
    editions: dict[str, dict[str, InstrumentResult]] = field(default_factory=dict)

    @property
    def is_people(self) -> bool:
        return self.model is None


def _plugins() -> list[Instrument]:
    return registry.instruments()


def figure_contexts(instruments: Sequence[str]) -> dict[str, FigureContext]:
    """Each named instrument's `figure_context`, read once for a whole page."""
    return {slug: registry.instrument(slug).figure_context() for slug in instruments}


def model_subjects(slugs: Sequence[str]) -> tuple[list[Subject], list[str]]:
    """The models ``slugs`` in that order with every published result of theirs (two queries), and the slugs no
    model has. Figures are filled in by `subjects_with_figures`."""
    models = {model.slug: model for model in LLMModel.objects.filter(slug__in=list(slugs))}
    results = Result.objects.filter(model__slug__in=list(models)).select_related("model", "run").order_by("pk")
    by_model: dict[str, list[Result]] = {}
    for result in results:
        by_model.setdefault(result.model.slug, []).append(result)
    subjects = [
        Subject(slug=slug, name=models[slug].name, model=models[slug], results={}) for slug in slugs if slug in models
    ]
    for subject in subjects:
        for result in by_model.get(subject.slug, []):
            if result.instrument not in registry.slugs():
                continue
            entry = InstrumentResult(
                instrument=result.instrument,
                name="",
                figures=[],
                source=result.source,
                result=result,
                summary=result.summary,
            )
            subject.editions.setdefault(result.instrument, {})[result.language] = entry
            # One language per instrument on these pages: the first published (English unless only another exists).
            if result.instrument not in subject.results or result.language == "en":
                subject.results[result.instrument] = entry
    return subjects, [slug for slug in slugs if slug not in models]


def subjects_with_figures(subjects: Sequence[Subject]) -> dict[str, FigureContext]:
    """Fill in every subject's figures, staleness and report links; return the instruments' figure contexts (for
    the pictures), read once for the instruments anyone has a result on."""
    measured = [slug for slug in registry.slugs() if any(slug in subject.results for subject in subjects)]
    contexts = figure_contexts(measured)
    current = CurrentDependencies()
    for subject in subjects:
        for slug, entry in _entries(subject):
            plugin = registry.instrument(slug)
            result = entry.result
            assert result is not None
            entry.name = plugin.identity.display_name
            entry.figures = plugin.profile_figures(result.summary, contexts[slug])
            entry.stale = result_is_stale(result, current=current)
            entry.diagnostics = result.diagnostics
            entry.report_url = plugin.report_url(subject.slug) if subject.model is not None else None
    return contexts


def _entries(subject: Subject) -> list[tuple[str, InstrumentResult]]:
    """Every result of a subject, the one shown per instrument and those of its other languages, each once."""
    entries = {id(entry): (slug, entry) for slug, entry in subject.results.items()}
    for slug, by_language in subject.editions.items():
        entries.update({id(entry): (slug, entry) for entry in by_language.values()})
    return list(entries.values())


def edition_comparison(editions: Mapping[str, Sequence[Figure]]) -> dict[str, Any] | None:
    """One model's figures on one instrument in each language it was published in (language → figures), side by
    side: per figure of the base edition (English where there is one), each edition's cell with its interval
    (`figure_cell`) and each other edition's difference from the base, other − base with Welch's interval over the
    two editions' replicate runs (`figure_differences`). None for fewer than two languages.

    Returns {"base", "others", "languages": [{"code", "name"}], "rows": [{"key", "label", "group", "cells",
    "differences"}]}, cells in ``languages`` order, differences in ``others`` order (None where a side has no mean).
    """
    if len(editions) < 2:
        return None
    codes = sorted(editions, key=lambda code: (code != "en", code))
    base, others = codes[0], codes[1:]
    differences = {
        code: {row["key"]: row for row in figure_differences(editions[code], editions[base])} for code in others
    }
    by_key = {code: {figure.key: figure for figure in editions[code]} for code in codes}
    rows = [
        {
            "key": figure.key,
            "label": figure.label,
            "group": figure.group,
            "cells": [figure_cell(by_key[code].get(figure.key)) for code in codes],
            "differences": [differences[code].get(figure.key) for code in others],
        }
        for figure in editions[base]
    ]
    return {"base": base, "others": others, "languages": [_language(code) for code in codes], "rows": rows}


def _language(code: str) -> dict[str, str]:
    """A language's code and its name in the page's language (Django's language information)."""
    try:
        name = get_language_info(code)["name_translated"]
    except KeyError:
        name = code
    return {"code": code, "name": str(name)}


def subject_editions(subject: Subject) -> dict[str, dict[str, Any]]:
    """`edition_comparison` of each instrument the subject (a model) has in more than one language, by slug; the
    subject's figures must be filled in (`subjects_with_figures`)."""
    found = {}
    for slug, by_language in subject.editions.items():
        comparison = edition_comparison({code: entry.figures for code, entry in by_language.items()})
        if comparison is not None:
            found[slug] = comparison
    return found


PERSON = "you"


def person_subject(request: Any) -> tuple[Subject, dict[str, FigureContext]]:
    """This browser's own results on every instrument they took (`Instrument.person_summary`: stored answers only
    for a respondent who consented, the rest computed from what the browser holds; nothing is stored here), with
    the figure contexts of those instruments."""
    summaries = {}
    for plugin in registry.instruments():
        summary = plugin.person_summary(request) or person_questionnaire_summary(plugin, request)
        if summary:
            summaries[plugin.slug] = summary
    contexts = figure_contexts(list(summaries))
    subject = Subject(slug=PERSON, name=_("You"), results={})
    for slug, summary in summaries.items():
        plugin = registry.instrument(slug)
        subject.results[slug] = InstrumentResult(
            instrument=slug,
            name=plugin.identity.display_name,
            figures=plugin.profile_figures(summary, contexts[slug]),
            source=PERSON,
            summary=summary,
        )
    return subject, contexts


def people_subject(contexts: Mapping[str, FigureContext]) -> Subject | None:
    """People's median on every instrument with people's data, as a pseudo-model (None when there is none)."""
    results = {}
    for slug, context in contexts.items():
        if not context.people:
            continue
        plugin = registry.instrument(slug)
        figures = [_people_figure(key, figure, context) for key, figure in context.people.items()]
        results[slug] = InstrumentResult(
            instrument=slug, name=plugin.identity.display_name, figures=figures, source=PEOPLE
        )
    if not results:
        return None
    return Subject(slug=PEOPLE, name=_("People (median)"), results=results)


def _people_figure(key: str, people: PeopleFigure, context: FigureContext) -> Figure:
    # The median is not a mean of replicates: no spread, so no interval of a difference with it.
    return Figure(key=key, label=context.labels.get(key, key), mean=people.median, n=people.n)


def sections(
    subjects: Sequence[Subject], contexts: Mapping[str, FigureContext]
) -> list[tuple[str, str, ProfileSection | None]]:
    """Per instrument anyone has a result on (registry order): (slug, name, the overlaid picture of every subject)."""
    found = []
    for slug, context in contexts.items():
        plugin = registry.instrument(slug)
        summaries = [
            (subject.name, subject.results[slug].summary)
            for subject in subjects
            if slug in subject.results and subject.results[slug].summary is not None
        ]
        found.append(
            (slug, plugin.identity.display_name, plugin.profile_section(summaries, context) if summaries else None)
        )
    return found


def figure_table(subjects: Sequence[Subject], instrument: str) -> list[dict[str, Any]]:
    """One instrument's side-by-side table: per figure key (in the first subject's order), each subject's figure
    and people's distribution where there is one."""
    keys: dict[str, Figure] = {}
    for subject in subjects:
        entry = subject.results.get(instrument)
        for figure in entry.figures if entry else []:
            keys.setdefault(figure.key, figure)
    rows = []
    for key, first in keys.items():
        cells = []
        for subject in subjects:
            entry = subject.results.get(instrument)
            figure = next((one for one in entry.figures if one.key == key), None) if entry else None
            cells.append(figure_cell(figure))
        rows.append({"key": key, "label": first.label, "group": first.group, "maximum": first.maximum, "cells": cells})
    return rows


def figure_cell(figure: Figure | None) -> dict[str, Any] | None:
    """A figure's record with its 95 % interval (``low``, ``high``; None below two replicates)."""
    if figure is None:
        return None
    interval = mean_interval(figure.mean, figure.std, figure.n) if figure.mean is not None else None
    low, high = interval or (None, None)
    return {**figure.record(), "low": low, "high": high}


def paired_differences(first: Subject, second: Subject, instrument: str) -> list[dict[str, Any]]:
    """For two subjects, per figure both have (in the first's order): first − second with Welch's interval from
    their replicate runs (`scoring.compare.welch_difference`); no interval where either side has fewer than two
    replicates (people's median has none)."""
    mine = first.results[instrument].figures if instrument in first.results else []
    theirs = second.results[instrument].figures if instrument in second.results else []
    return figure_differences(mine, theirs)


def figure_samples(figures: Sequence[Figure]) -> dict[str, Sample]:
    """The figures with a mean as replicate samples by key, in their order (for `scoring.compare`)."""
    return {figure.key: Sample(figure.mean, figure.std, figure.n) for figure in figures if figure.mean is not None}


def figure_differences(first: Sequence[Figure], second: Sequence[Figure]) -> list[dict[str, Any]]:
    """Per figure both lists have (in the first's order): first − second with Welch's interval, as records with the
    figure's key, label and group (`scoring.compare.sample_differences`)."""
    differences = sample_differences(figure_samples(first), figure_samples(second))
    return [
        {"key": figure.key, "label": figure.label, "group": figure.group, **differences[figure.key].record()}
        for figure in first
        if figure.key in differences
    ]


def measured_subjects(instrument: str) -> list[Subject]:
    """Every model with a published result on ``instrument``, by name (three queries)."""
    slugs = list(
        Result.objects.filter(instrument=instrument)
        .order_by("model__name", "model__slug")
        .values_list("model__slug", flat=True)
        .distinct()
    )
    subjects, _missing = model_subjects(slugs)
    return subjects


def leaderboard(subjects: Sequence[Subject], instrument: str) -> dict[str, Any]:
    """One instrument's leaderboard: a row per subject (its figures by key, its replicates), a column per figure
    (in the first subject's order), and below them the mean and the range of each column over the subjects
    (`scoring.compare.column_summary`), as VirtueMap's Table 1 prints them."""
    columns: dict[str, Figure] = {}
    for subject in subjects:
        for figure in subject.results[instrument].figures if instrument in subject.results else []:
            columns.setdefault(figure.key, figure)
    rows = []
    for subject in subjects:
        entry = subject.results.get(instrument)
        if entry is None:
            continue
        by_key = {figure.key: figure for figure in entry.figures}
        rows.append(
            {
                "slug": subject.slug,
                "name": subject.name,
                "source": entry.source,
                "stale": entry.stale,
                "flags": [flag["code"] for flag in (entry.diagnostics or {}).get("flags") or []],
                "n": max((figure.n for figure in entry.figures), default=0),
                "values": [by_key[key].mean if key in by_key else None for key in columns],
            }
        )
    summaries = [column_summary([row["values"][index] for row in rows]) for index in range(len(columns))]
    return {
        "columns": [{"key": key, "label": figure.label, "group": figure.group} for key, figure in columns.items()],
        "rows": rows,
        "mean": [summary.mean for summary in summaries],
        "range": [{"low": summary.low, "high": summary.high} for summary in summaries],
    }
