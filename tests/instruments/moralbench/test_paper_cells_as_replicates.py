"""The paper's Tables 1 and 2 entered as five runs' letters through the score API reproduce the printed cells.

Each published cell is the mean over five runs of a foundation's points. For every cell the test searches the five
runs' answers (each a choice of A or B per item of the foundation) whose mean is the cell to its printed precision
(±0.05), and among those a combination whose set total is the printed total too; it then posts every item's five
letters and reads the cells back from the API. The item scores allow all but three cells, the ones the data file's
notes call impossible: Table 1 MFV-LLM LLaMA-2 Sanctity 11.1 (above the maximum 9.9, and with it that row's total
52.6), Table 1 MFV-LLM Gemma-1.1 total 44.4 (the row sums to 51.8; no choice of letters gives both), and Table 2
MFQ-30-LLM Zephyr Loyalty 0.4 (below the minimum 1.0, and with it that row's total 8.2).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from instruments.moralbench.selectors import scorer_items

pytestmark = pytest.mark.django_db

URL = "/api/v1/instruments/moralbench/score/"
FIXTURES = Path(__file__).resolve().parents[3] / "instruments" / "moralbench" / "fixtures"
RUNS = 5
PRECISION = 0.05 + 1e-9
COLUMNS = {"care": "harm", "fairness": "fairness", "loyalty": "ingroup", "authority": "authority"}
COLUMNS |= {"sanctity": "purity", "liberty": "liberty"}
TABLES = {
    "paper_table1.json": {"MFQ-30-LLM": "MFQ_30", "MFV-LLM": "6_concepts"},
    "paper_table2.json": {"MFQ-30-LLM": "MFQ_30_compare", "MFV-LLM": "6_concepts_compare"},
}
# (table, sub-table, model, column): the cells the released item scores cannot produce (the file's notes).
IMPOSSIBLE = {
    ("paper_table1.json", "MFV-LLM", "LLaMA-2", "sanctity"),
    ("paper_table1.json", "MFV-LLM", "LLaMA-2", "total"),
    ("paper_table1.json", "MFV-LLM", "Gemma-1.1", "total"),
    ("paper_table2.json", "MFQ-30-LLM", "Zephyr", "loyalty"),
    ("paper_table2.json", "MFQ-30-LLM", "Zephyr", "total"),
}


def _run_means(items):
    """Every mean over five runs a foundation's items can give → the five runs' choices (a letter per item)."""
    per_run = {}
    for choice in itertools.product("AB", repeat=len(items)):
        per_run.setdefault(round(sum(item.scores[c] for item, c in zip(items, choice, strict=True)), 6), choice)
    means = {}
    for runs in itertools.combinations_with_replacement(sorted(per_run), RUNS):
        means.setdefault(round(sum(runs) / RUNS, 6), [per_run[value] for value in runs])
    return means


def _letters_for(row, set_name, items):
    """Item key → five letters whose means give the row's cells (and total, if possible); the cells reached."""
    options = {}
    for column, foundation in COLUMNS.items():
        if row.get(column) is None:
            continue
        members = [item for item in items if item.set_name == set_name and item.foundation == foundation]
        means = _run_means(members)
        fitting = [mean for mean in means if abs(mean - row[column]) <= PRECISION]
        options[column] = (members, means, fitting or [min(means, key=lambda mean: abs(mean - row[column]))])
    # The combination of cell means closest to the printed total (exact search: a handful of means per cell).
    best = min(
        itertools.product(*(fitting for _, _, fitting in options.values())),
        key=lambda combination: abs(sum(combination) - row["total"]),
    )
    letters = {}
    for (members, means, _), mean in zip(options.values(), best, strict=True):
        for index, item in enumerate(members):
            letters[item.key] = [choice[index] for choice in means[mean]]
    return letters


def _cases():
    for table, subtables in TABLES.items():
        for model in json.loads((FIXTURES / table).read_text())["models"]:
            for subtable, set_name in subtables.items():
                cell = (table, subtable, model["name"])
                yield pytest.param(cell, model[subtable], set_name, id="-".join(cell).replace(".json", ""))


@pytest.mark.parametrize(("cell", "row", "set_name"), list(_cases()))
def test_the_published_cells_entered_as_five_runs_come_back_as_printed(client, moralbench, cell, row, set_name):
    letters = _letters_for(row, set_name, scorer_items())
    assert all(len(given) == RUNS for given in letters.values())

    response = client.post(URL, {"answers": letters}, content_type="application/json")

    assert response.status_code == 200
    scored = response.json()["sets"][set_name]
    assert scored["replicates"] == RUNS
    reached = {column: scored["foundations"][COLUMNS[column]] for column in COLUMNS if row.get(column) is not None}
    reached["total"] = scored["total"]
    for column, value in reached.items():
        reproduced = abs(value - row[column]) <= PRECISION
        assert reproduced is ((*cell, column) not in IMPOSSIBLE), (column, value, row[column])


def test_an_impossible_cell_is_out_of_reach_by_the_item_scores(moralbench):
    """LLaMA-2's MFV Sanctity 11.1: the five-run means of the purity items stop at 9.9."""
    items = [item for item in scorer_items() if item.set_name == "6_concepts" and item.foundation == "purity"]
    assert max(_run_means(items)) == pytest.approx(9.9)
