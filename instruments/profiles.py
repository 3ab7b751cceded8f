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
from instruments.base import Figure, FigureContext, Instrument, PeopleFigure, PrintedSummary, ProfileSection
from llmruns.models import LLMModel, Result, Run
from llmruns.results import CurrentDependencies, result_is_stale
from scoring.compare import Sample, column_summary, mean_interval, printed_agrees, sample_differences
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
    protocol: str = ""
    citation: str = ""
    # A published row's cells its paper's own data contradicts: figure key → {"reason", "bound"} (`cell_note_text`).
    cell_notes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def published(self) -> bool:
        return self.source == Result.Source.PAPER

    def notes_text(self) -> dict[str, str]:
        """The cell notes as sentences in the page's language, by figure key."""
        return {key: cell_note_text(note) for key, note in self.cell_notes.items()}

    def record(self) -> dict[str, Any]:
        result = self.result
        return {
            "instrument": self.instrument,
            "name": self.name,
            "source": self.source,
            "protocol": self.protocol,
            "citation": self.citation,
            "cell_notes": self.notes_text(),
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
                protocol=_protocol(result),
                citation=result.citation,
                cell_notes=result.cell_notes or {},
            )
            subject.editions.setdefault(result.instrument, {})[result.language] = entry
            # One language per instrument on these pages: the first published (English unless only another exists).
            if result.instrument not in subject.results or result.language == "en":
                subject.results[result.instrument] = entry
    return subjects, [slug for slug in slugs if slug not in models]


def _protocol(result: Result) -> str:
    # A result published before results stored their protocol reads it from its run's plan.
    if result.protocol or result.run is None:
        return result.protocol
    return registry.instrument(result.instrument).result_protocol(result.run.plan or {})


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
            # The instrument's own report is of runs; a paper's row has its table instead.
            shown = subject.model is not None and not entry.published
            entry.report_url = plugin.report_url(subject.slug) if shown else None
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
            cell = figure_cell(figure)
            note = entry.notes_text().get(key) if entry is not None and cell is not None else None
            cells.append({**cell, "note": note} if note else cell)
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
                "protocol": entry.protocol,
                "stale": entry.stale,
                "flags": [flag["code"] for flag in (entry.diagnostics or {}).get("flags") or []],
                "n": max((figure.n for figure in entry.figures), default=0),
                "values": [by_key[key].mean if key in by_key else None for key in columns],
                "citation": entry.citation,
                "notes": [entry.notes_text().get(key) for key in columns],
            }
        )
    for row in rows:
        row["cells"] = [{"value": value, "note": note} for value, note in zip(row["values"], row["notes"], strict=True)]
    # The papers' rows sit beside the runs but never enter their mean and range.
    runs = [row for row in rows if row["source"] != Result.Source.PAPER]
    summaries = [column_summary([row["values"][index] for row in runs]) for index in range(len(columns))]
    protocols = sorted({row["protocol"] for row in rows})
    labels = {key: figure.label for key, figure in columns.items()}
    return {
        "columns": [{"key": key, "label": figure.label, "group": figure.group} for key, figure in columns.items()],
        "published": sum(1 for row in rows if row["source"] == Result.Source.PAPER),
        "cell_notes": [
            {"model": row["name"], "slug": row["slug"], "column": labels[key], "key": key, "note": note}
            for row in rows
            for key, note in zip(columns, row["notes"], strict=True)
            if note
        ],
        "protocols": protocols,
        "comparable": len(protocols) <= 1,
        "rows": rows,
        "mean": [summary.mean for summary in summaries],
        "range": [{"low": summary.low, "high": summary.high} for summary in summaries],
    }


def cell_note_text(note: Mapping[str, Any]) -> str:
    """Why a published cell cannot be what the paper prints, in the page's language."""
    bound = note.get("bound")
    if note.get("reason") == "above_maximum":
        return _("impossible: above the largest value the item set allows (%(bound)s)") % {"bound": bound}
    if note.get("reason") == "below_minimum":
        return _("impossible: below the smallest value the item set allows (%(bound)s)") % {"bound": bound}
    if note.get("reason") == "not_row_sum":
        return _("impossible: the printed total is not the sum of its row (%(bound)s)") % {"bound": bound}
    return str(note.get("text") or note)


def protocols_compared(subjects: Sequence[Subject], instrument: str) -> dict[str, Any]:
    """The protocol of each subject's result on ``instrument`` (a model's slug → its named protocol, "" where none was
    recorded) and whether they are comparable: results asked by different protocols are not."""
    protocols = {
        subject.slug: subject.results[instrument].protocol
        for subject in subjects
        if instrument in subject.results and not subject.is_people
    }
    distinct = sorted(set(protocols.values()))
    return {"protocols": protocols, "distinct": distinct, "comparable": len(distinct) <= 1}


def printed_check(board: Mapping[str, Any], printed: PrintedSummary | None) -> dict[str, Any] | None:
    """A leaderboard's rows that reproduce a paper's printed rows (``printed.models``), checked against what the
    paper prints: the mean and range of each printed column over those rows, and each of their cells, computed here
    and rounded to the paper's places (`scoring.compare.printed_agrees`). A cell that differs by less than one unit
    of the last printed place is a rounding ("kind": "rounding"), more is a discrepancy ("differs").

    Returns {"source", "models": reproducing rows found, "expected": printed rows, "mean": [...], "range": [...],
    "cells": [the differing cells only]}, or None when the paper prints nothing or no row reproduces one.
    """
    if printed is None:
        return None
    rows = [row for row in board["rows"] if row["slug"] in printed.models and row["source"] != "paper"]
    if not rows:
        return None
    index = {column["key"]: number for number, column in enumerate(board["columns"])}
    labels = {column["key"]: column["label"] for column in board["columns"]}

    def check(key: str, computed: float | None, value: float, decimals: int) -> dict[str, Any]:
        agrees = computed is not None and printed_agrees(computed, value, decimals)
        return {
            "key": key,
            "label": labels.get(key, key),
            "computed": computed,
            "printed": value,
            "decimals": decimals,
            "agrees": agrees,
            "kind": None if agrees or computed is None else _difference_kind(computed, value, decimals),
        }

    means, ranges = [], []
    for key, value in printed.mean.items():
        summary = column_summary([row["values"][index[key]] for row in rows]) if key in index else None
        means.append(check(key, summary.mean if summary else None, value, printed.mean_decimals))
    for key, value in printed.range.items():
        summary = column_summary([row["values"][index[key]] for row in rows]) if key in index else None
        spread = summary.high - summary.low if summary and summary.low is not None else None
        ranges.append(check(key, spread, value, printed.range_decimals))
    cells = []
    for row in rows:
        for key, value in printed.cells.get(row["slug"], {}).items():
            computed = row["values"][index[key]] if key in index else None
            cell = check(key, computed, value, printed.cell_decimals)
            if not cell["agrees"]:
                cells.append({**cell, "model": row["name"], "slug": row["slug"], "row": printed.models[row["slug"]]})
    return {
        "source": printed.source,
        "models": len(rows),
        "expected": len(printed.models),
        "mean": means,
        "range": ranges,
        "cells": cells,
    }


def _difference_kind(computed: float, printed: float, decimals: int) -> str:
    return "rounding" if abs(computed - printed) < 10.0**-decimals else "differs"
