"""Loading the AMAeval dataset: counts, idempotence, refusal of a malformed file, and a faithful round trip."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from instruments.amaeval import items
from instruments.amaeval.models import Derivation, Evaluation, Scenario
from instruments.amaeval.selectors import dataset
from instruments.amaeval.services import AMAEVAL_FIXTURE, amaeval_instrument_load

pytestmark = pytest.mark.django_db


def test_load_amaeval_loads_the_dataset_once(capsys):
    call_command("load_amaeval")
    assert (Scenario.objects.count(), Derivation.objects.count(), Evaluation.objects.count()) == (40, 200, 1090)
    call_command("load_amaeval")
    assert "already up to date" in capsys.readouterr().out


def test_the_loaded_items_are_the_files_items_prompts_included(amaeval_instrument):
    with AMAEVAL_FIXTURE.open(encoding="utf-8") as handle:
        from_file = items.rating_items(json.load(handle))
    from_database = items.rating_items(dataset())
    assert [i.record() for i in from_database] == [i.record() for i in from_file]
    for fidelity in items.FIDELITIES:
        assert [items.rating_text(i, fidelity=fidelity) for i in from_database] == [
            items.rating_text(i, fidelity=fidelity) for i in from_file
        ]


def test_the_dataset_loads_in_a_few_statements_a_table_and_a_rerun_only_reads(db, django_assert_max_num_queries):
    data = json.loads(AMAEVAL_FIXTURE.read_text(encoding="utf-8"))
    # Per table a read and its bulk inserts (1,090 evaluations: three of 500), plus the transaction's savepoint.
    with django_assert_max_num_queries(10):
        amaeval_instrument_load(data=data)
    with django_assert_max_num_queries(5):  # three reads
        assert not amaeval_instrument_load(data=data).changed


def test_a_corrected_file_updates_only_the_rows_it_changes(amaeval_instrument):
    data = json.loads(AMAEVAL_FIXTURE.read_text(encoding="utf-8"))
    data["data"][3]["precepts"][2]["reasoning"] = "A corrected derivation."
    data["data"][0]["evaluations"][1][4]["contradicted"]["reasoning"] = "A corrected evaluation."
    evaluations_before = set(Evaluation.objects.values_list("pk", flat=True))

    report = amaeval_instrument_load(data=data)

    assert (report.created, report.updated) == ({}, {"Derivation": 1, "Evaluation": 1})
    assert Derivation.objects.get(scenario__index=3, position=2).reasoning == "A corrected derivation."
    changed = Evaluation.objects.get(scenario__index=0, action=1, position=4, kind="contradicted")
    assert changed.reasoning == "A corrected evaluation."
    assert set(Evaluation.objects.values_list("pk", flat=True)) == evaluations_before


def test_a_score_off_the_scale_is_refused_and_nothing_is_written(tmp_path):
    data = json.loads(AMAEVAL_FIXTURE.read_text(encoding="utf-8"))
    data["data"][3]["precepts"][2]["score"] = 7
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CommandError, match="scenario 3: task 1 score 7 is neither 1–4 nor n/a"):
        call_command("load_amaeval", "--file", str(path))
    assert not Scenario.objects.exists()


def test_the_instruments_api_lists_amaevals_items_and_plan(client, amaeval_instrument):
    body = client.get("/api/v1/instruments/amaeval/").json()

    assert body["loaded"] is True and len(body["items"]) == 200 + 1090 + 79  # the published dynamic scenarios
    assert body["items"][0] == body["items"][0] | {"id": "t1/0/Authority", "task": 1, "gold": 0}
    assert body["items"][-1] | {"scenario": ""} == {"id": "gen/78", "scenario": "", "seen_by_published_judge": False}
    names = {option["name"] for option in body["plan_options"]}
    assert names >= {"part", "fidelity", "judge_mode", "replicates", "scenario_set"}
