"""Migration 0009_runs_name_their_protocol on a populated database: the original suite's imported records are named
"original", runs asked by the earlier prompt "earlier" (never compared unmarked with either published protocol), a
run that already names one keeps it, and each result takes its run's protocol."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.migrations import migrate_to

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("virtuemap", "0008_time_on_item_ms_in_64_bits"), ("llmruns", "0011_result_protocol")]
AFTER = [("virtuemap", "0009_runs_name_their_protocol"), ("llmruns", "0011_result_protocol")]


@pytest.fixture(autouse=True)
def latest_schema_afterwards():
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_runs_and_results_name_the_protocol_they_were_asked_by():
    apps = migrate_to(BEFORE)
    LLMModel, Run, Result = (apps.get_model("llmruns", name) for name in ("LLMModel", "Run", "Result"))
    model = LLMModel.objects.create(slug="m", name="M", model_id="m")
    imported = Run.objects.create(model=model, instrument="virtuemap", instrument_version="2", status="imported")
    earlier = Run.objects.create(model=model, instrument="virtuemap", instrument_version="2", status="finished",
                                 plan={"min_runs": 3})  # fmt: skip
    named = Run.objects.create(model=model, instrument="virtuemap", instrument_version="2", status="finished",
                               plan={"protocol": "paper"})  # fmt: skip
    other = Run.objects.create(model=model, instrument="moralbench", instrument_version="1", status="finished")
    result = Result.objects.create(model=model, instrument="virtuemap", source="import", run=imported, summary={})

    apps = migrate_to(AFTER)
    Run, Result = apps.get_model("llmruns", "Run"), apps.get_model("llmruns", "Result")
    plans = {run.pk: run.plan for run in Run.objects.all()}
    assert plans[imported.pk] == {"protocol": "original"}
    assert plans[earlier.pk] == {"min_runs": 3, "protocol": "earlier"}
    assert plans[named.pk] == {"protocol": "paper"} and plans[other.pk] == {}
    assert Result.objects.get(pk=result.pk).protocol == "original"
