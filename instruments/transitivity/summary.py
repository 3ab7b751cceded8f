"""The paper's summary statistics (`scoring.transitivity.summary`) over the models measured here or over the paper's
own block-level table, as the page, the API and the downloads show them.

Two sources, never pooled: ``runs`` (the stored results of the models measured on the platform, all of them or the
ones named) and ``paper`` (Extended Data Table 2 of the transitivity paper, `fixtures/paper_ed_table2.json`, 5 LLMs ×
6 blocks × 2 presentation orders). For the paper's table, every figure the paper's text derives from it stands beside
the figure the table gives, with a note where the two differ.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from instruments.transitivity.reports import ORDERS
from scoring.transitivity import ChoiceSetVerdict, TransitivitySummary, transitivity_summary

PAPER_TABLE = Path(__file__).resolve().parent / "fixtures" / "paper_ed_table2.json"
# The table's presentation orders in ours: "1 vs. 2" is the original order, "2 vs. 1" the reversed one.
PAPER_ORDERS = {"1 vs. 2": ORDERS[0], "2 vs. 1": ORDERS[1]}
PAPER_CITATION = (
    "Wasson, Song et al., Do large language models rank moral values? A transitivity test of moral competence: "
    "Extended Data Table 2, and the Results sections Adherence to Transitivity Models and Consistency of Preference "
    "Orders"
)
SOURCES = ("runs", "paper")
MAX_MODELS = 100


@dataclass(frozen=True)
class PrintedFigure:
    """A figure the paper's text derives from its block-level table: what it counts, and the printed k / n."""

    key: str
    label: Any
    printed: tuple[int, int]
    note: Any = ""


# The figures of the paper's text, as printed (Results, "Adherence to Transitivity Models" and "Consistency of
# Preference Orders"). Each is recomputed from the table below; the notes say where the two differ.
PRINTED = (
    PrintedFigure("wum", gettext_lazy("Choice sets satisfying WUM"), (36, 60)),
    PrintedFigure("hcm", gettext_lazy("Choice sets satisfying HCM"), (8, 60)),
    PrintedFigure("grum", gettext_lazy("Choice sets satisfying G-RUM"), (13, 60)),
    PrintedFigure("Cp_top_two", gettext_lazy("Rankings with Cp (care, physical) in the top two places"), (28, 36)),
    PrintedFigure(
        "A_Lo_bottom_two",
        gettext_lazy("Rankings with A and Lo in the last two places"),
        (20, 36),
        gettext_lazy(
            "The paper's text prints 20 of 36 (56 %); its own table gives 22 of 36 (61 %). 20 is the number of "
            "rankings with Lo alone in the last place, a possible source of the printed figure."
        ),
    ),
    PrintedFigure("order_wum", gettext_lazy("Blocks whose WUM verdict differs between the two orders"), (8, 30)),
    PrintedFigure("order_grum", gettext_lazy("Blocks whose G-RUM verdict differs between the two orders"), (5, 30)),
    PrintedFigure(
        "order_ranking_or_triples",
        gettext_lazy("Blocks whose ranking or violating triples differ between the two orders"),
        (26, 30),
    ),
)


@cache
def _paper_table() -> dict[str, Any]:
    return json.loads(PAPER_TABLE.read_text(encoding="utf-8"))


def paper_rows() -> list[dict[str, Any]]:
    """The rows of the paper's Extended Data Table 2, as published (the file is read once per process)."""
    return _paper_table()["rows"]


def paper_principles() -> tuple[str, ...]:
    """The paper's principle codes in its order (A, Ce, Cp, F, Li, Lo, S: the platform's alternatives 0–6)."""
    return tuple(_paper_table()["columns"]["codes"])


def paper_verdicts() -> list[ChoiceSetVerdict]:
    return [
        ChoiceSetVerdict(
            subject=row["llm"],
            block=row["block"],
            order=PAPER_ORDERS[row["presentation_order"]],
            wum=row["WUM"],
            hcm=row["HCM"],
            grum=row["G-RUM"],
            ranking=tuple(row["rank_ordering"]) if row["rank_ordering"] else None,
            triples=tuple(tuple(triple) for triple in row["wum_violating_triples"] or ()),
        )
        for row in paper_rows()
    ]


def result_verdicts(subject: str, results: Mapping[str, Any]) -> list[ChoiceSetVerdict]:
    """The verdicts of a subject's tested choice sets (`reports.subject_results`); sets with a gap have none."""
    verdicts = []
    for vector in results["vectors"]:
        result = vector["result"]
        if result is None:
            continue
        ranking = result["copeland_order"]
        verdicts.append(
            ChoiceSetVerdict(
                subject=subject,
                block=vector["block"],
                order=vector["order"],
                wum=result["wum"],
                hcm=result["hcm"],
                grum=result["grum"],
                ranking=tuple(ranking) if ranking else None,
                triples=tuple(tuple(triad) for triad in result["violating_triads"]),
            )
        )
    return verdicts


def _share(count: int, of: int) -> float | None:
    return round(count / of, 6) if of else None


def _pair_count(payload: Mapping[str, Any], place: str, pair: tuple[str, str]) -> int:
    return next((row["count"] for row in payload[f"{place}_pairs"] if tuple(row["pair"]) == pair), 0)


def figure_count(payload: Mapping[str, Any], key: str) -> tuple[int, int]:
    """(k, n) of one figure of a summary payload: "wum", "hcm", "grum" (adherence), "order_<name>" (order effects),
    "<code>_top_two" / "<code>_bottom_two" (a principle's places), "A_Lo_bottom_two" (a pair's places)."""
    effects, details = payload["order_effects"], payload["order_effect_details"]
    if key in payload["adherence"]:
        return payload["adherence"][key]["count"], payload["sets"]
    if key.startswith("order_"):
        name = key.removeprefix("order_")
        return effects.get(name, details.get(name)), effects["pairs"]
    codes, *place_words = key.rsplit("_", 2)
    place = "_".join(place_words)
    rankings = next(iter(payload["principles"].values()), {}).get("rankings", 0)
    if "_" in codes:
        first, second = codes.split("_")
        return _pair_count(payload, place, (first, second)), rankings
    return payload["principles"].get(codes, {}).get(place, 0), rankings


def printed_comparison(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each figure of the paper's text beside what its table gives, and whether they agree."""
    rows = []
    for figure in PRINTED:
        count, of = figure_count(payload, figure.key)
        rows.append(
            {
                "figure": figure.key,
                "label": str(figure.label),
                "printed": {"count": figure.printed[0], "of": figure.printed[1]},
                "table": {"count": count, "of": of, "share": _share(count, of)},
                "agrees": (count, of) == figure.printed,
                "note": str(figure.note),
            }
        )
    return rows


def _pairs(counts: Mapping[tuple[str, str], int], rankings: int) -> list[dict[str, Any]]:
    return [{"pair": list(pair), "count": count, "share": _share(count, rankings)} for pair, count in counts.items()]


def summary_payload(
    summary: TransitivitySummary, *, source: str, models: Sequence[Mapping[str, str]]
) -> dict[str, Any]:
    """The API's, the page's and the JSON download's shape of a summary (docs/instruments/transitivity.md)."""
    effects = summary.order_effects
    rankings = next(iter(summary.principles.values())).rankings if summary.principles else 0
    payload = {
        "source": source,
        "models": list(models),
        "sets": summary.sets,
        "adherence": {
            name: {"count": share.count, "share": _share(share.count, share.of)}
            for name, share in summary.adherence.items()
        },
        "order_effects": {
            "pairs": effects.pairs,
            "wum": effects.wum,
            "grum": effects.grum,
            "ranking_or_triples": effects.ranking_or_triples,
        },
        "order_effect_details": {
            "hcm": effects.hcm,
            "any": effects.any,
            "shares": {
                name: _share(getattr(effects, name), effects.pairs)
                for name in ("wum", "hcm", "grum", "ranking_or_triples", "any")
            },
        },
        "principles": {
            code: {"rankings": places.rankings, "top_two": places.top_two, "bottom_two": places.bottom_two}
            for code, places in summary.principles.items()
        },
        "principle_shares": {
            code: {
                "top_two": _share(places.top_two, places.rankings),
                "bottom_two": _share(places.bottom_two, places.rankings),
            }
            for code, places in summary.principles.items()
        },
        "top_two_pairs": _pairs(summary.top_two_pairs, rankings),
        "bottom_two_pairs": _pairs(summary.bottom_two_pairs, rankings),
    }
    if source == "paper":
        payload["citation"] = PAPER_CITATION
        payload["printed"] = printed_comparison(payload)
    return payload


def paper_summary() -> dict[str, Any]:
    """The summary of the paper's own block-level table, with the text's figures beside it."""
    subjects = dict.fromkeys(row["llm"] for row in paper_rows())
    summary = transitivity_summary(paper_verdicts(), paper_principles(), ORDERS)
    return summary_payload(summary, source="paper", models=[{"name": name} for name in subjects])


def runs_summary(principles: Sequence[str], results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary over models' stored results (`selectors.model_results_list` records)."""
    verdicts = [verdict for result in results for verdict in result_verdicts(result["model"]["slug"], result)]
    summary = transitivity_summary(verdicts, principles, ORDERS)
    models = [{"slug": result["model"]["slug"], "name": result["model"]["name"]} for result in results]
    return summary_payload(summary, source="runs", models=models)


ROWS = (
    ("wum", gettext_lazy("Choice sets satisfying WUM")),
    ("hcm", gettext_lazy("Choice sets satisfying HCM")),
    ("grum", gettext_lazy("Choice sets satisfying G-RUM")),
    ("order_wum", gettext_lazy("Blocks whose WUM verdict differs between the two orders")),
    ("order_grum", gettext_lazy("Blocks whose G-RUM verdict differs between the two orders")),
    (
        "order_ranking_or_triples",
        gettext_lazy("Blocks whose ranking or violating triples differ between the two orders"),
    ),
    ("order_hcm", gettext_lazy("Blocks whose HCM verdict differs between the two orders")),
    ("order_any", gettext_lazy("Blocks with any of these differences")),
    ("A_Lo_bottom_two", gettext_lazy("Rankings with A and Lo in the last two places")),
)


def comparison_rows(paper: Mapping[str, Any], runs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The page's table: per statistic, the paper's table, the paper's text (where it prints the figure) and the
    models measured here, each as {count, of, share}, with the note where the text departs from the table."""
    printed = {figure.key: figure for figure in PRINTED}

    def cell(payload: Mapping[str, Any], key: str) -> dict[str, Any]:
        count, of = figure_count(payload, key)
        return {"count": count, "of": of, "share": _share(count, of)}

    keys = [(key, str(label)) for key, label in ROWS]
    for code in paper["principles"]:
        keys.append((f"{code}_top_two", _("Rankings with %(code)s in the top two places") % {"code": code}))
        keys.append((f"{code}_bottom_two", _("Rankings with %(code)s in the bottom two places") % {"code": code}))
    rows = []
    for key, label in keys:
        figure = printed.get(key)
        text = None
        if figure is not None:
            text = {"count": figure.printed[0], "of": figure.printed[1], "share": _share(*figure.printed)}
        table = cell(paper, key)
        rows.append(
            {
                "key": key,
                "label": label,
                "paper": table,
                "printed": text,
                "agrees": text is None or (text["count"], text["of"]) == (table["count"], table["of"]),
                "note": str(figure.note) if figure else "",
                "runs": cell(runs, key),
            }
        )
    return rows


CSV_HEADER = ("source", "statistic", "count", "total", "share", "printed_count", "printed_total", "note")


def summary_csv(payload: Mapping[str, Any]) -> str:
    """One row per statistic: adherence per model, order effects, each principle's top two and bottom two, and (for
    the paper) the printed figure beside the table's."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    source, sets = payload["source"], payload["sets"]
    for name, value in payload["adherence"].items():
        writer.writerow([source, f"adherence_{name}", value["count"], sets, _text(value["share"])])
    effects, details = payload["order_effects"], payload["order_effect_details"]
    for name in ("wum", "hcm", "grum", "ranking_or_triples", "any"):
        count = effects.get(name, details.get(name))
        share = details["shares"][name]
        writer.writerow([source, f"order_effect_{name}", count, effects["pairs"], _text(share)])
    for code, places in payload["principles"].items():
        for place in ("top_two", "bottom_two"):
            share = payload["principle_shares"][code][place]
            writer.writerow([source, f"{code}_{place}", places[place], places["rankings"], _text(share)])
    rankings = next(iter(payload["principles"].values()), {}).get("rankings", 0)
    for place in ("top_two", "bottom_two"):
        for row in payload[f"{place}_pairs"]:
            statistic = f"{'_'.join(row['pair'])}_{place}"
            writer.writerow([source, statistic, row["count"], rankings, _text(row["share"])])
    for row in payload.get("printed", []):
        table, printed = row["table"], row["printed"]
        writer.writerow(
            [
                source,
                f"paper_text_{row['figure']}",
                table["count"],
                table["of"],
                _text(table["share"]),
                printed["count"],
                printed["of"],
                row["note"],
            ]
        )
    return out.getvalue()


def _text(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def source_error(source: str) -> str:
    return _("source must be one of %(sources)s, not %(source)s") % {"sources": ", ".join(SOURCES), "source": source}
