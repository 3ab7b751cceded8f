"""The move to the one run engine loses nothing: a database at the schema of the two engines, populated with suites,
their items and attempts, published profiles, transitivity choice runs (log-probabilities, samples, a missing choice,
an unfinished run) and respondents, is migrated forward; every row is found in the new tables, `show_profiles --format
json` prints the reference profiles, and every model's transitivity result is the one its choices give."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from instruments.transitivity.reports import subject_results
from scoring.transitivity import pairs
from tests.instruments.transitivity.reporting import vectors_for_model
from tests.migrations import migrate_to

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
BEFORE = [
    ("llmruns", "0006_suite_heartbeat"),
    ("transitivity", "0001_instrument_runs_and_pairwise"),
    ("surveys", "0007_transitivity_study"),
]
CODES = ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]


def _old_suites(apps) -> dict[str, int]:
    """The reference records stored as the suite engine stored imports, with a re-ask and a provider error added to
    one item; returns model slug → suite id."""
    LLMModel = apps.get_model("llmruns", "LLMModel")
    Suite = apps.get_model("llmruns", "Suite")
    QuestionnaireRun = apps.get_model("llmruns", "QuestionnaireRun")
    ItemResponse = apps.get_model("llmruns", "ItemResponse")
    Instrument = apps.get_model("surveys", "Instrument")
    suites = {}
    for line in (DATA / "reference_runs_sample.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("record_type") == "agent_note":
            continue
        slug = record["model_slug"]
        if slug not in suites:
            model = LLMModel.objects.create(
                slug=slug, name=record["model_name"], model_id=slug, constrain_to_rankings=slug.startswith("openai")
            )
            suites[slug] = Suite.objects.create(
                model=model,
                instrument=Instrument.objects.get(),
                label="reference_runs_sample.jsonl",
                status="imported",
                request_params={"model_id": slug, "temperature": 0.7, "constrain_to_rankings": True},
            )
        run, _ = QuestionnaireRun.objects.get_or_create(suite=suites[slug], index=record["run_id"], defaults={})
        valid = record["valid"]
        attempts = [{"attempt": record["attempts"], "status": "valid" if valid else "unparseable",
                     "raw_text": record["raw_text"], "imported": True}]  # fmt: skip
        ItemResponse.objects.create(
            run=run,
            dilemma_id=record["dilemma_id"],
            status="done",
            display_to_option=record["display_position_to_canonical"],
            request_messages=[{"role": "user", "content": f"Dilemma {record['dilemma_id']}"}],
            attempts=attempts,
            attempt_count=record["attempts"],
            display_ranking=record["display_ranking"] if valid else None,
            canonical_ranking="".join(record["canonical_ranking"]) if valid else "",
            valid=valid,
            completed_at=record["timestamp"],
        )
    reasked = ItemResponse.objects.filter(run__suite=suites["openai/gpt-5"], valid=True).first()
    reasked.attempts = [
        {"attempt": None, "status": "provider_error", "raw_text": "", "detail": "HTTP 503",
         "at": "2026-06-09T23:00:00+00:00"},
        {"attempt": 1, "status": "not_a_permutation", "raw_text": '{"ranking":["1","1"]}', "detail": "1 repeated",
         "at": "2026-06-09T23:00:01+00:00"},
        {"attempt": 2, "status": "valid", "raw_text": "[...]", "detail": "", "at": "2026-06-09T23:00:02+00:00"},
    ]  # fmt: skip
    reasked.save()
    return {slug: suite.pk for slug, suite in suites.items()}


def _old_profiles(apps, suites: dict[str, int]) -> None:
    ModelProfile = apps.get_model("llmruns", "ModelProfile")
    LLMModel = apps.get_model("llmruns", "LLMModel")
    reference = {
        entry["slug"]: entry for entry in json.loads((DATA / "reference_profiles_sample.json").read_text())["models"]
    }
    for slug, suite_id in suites.items():
        entry = reference[slug]
        ModelProfile.objects.create(
            model=LLMModel.objects.get(slug=slug), source="import", suite_id=suite_id, runs=entry["runs"],
            profile_stats=entry["profile_stats"], max_ci_half_width=entry["max_ci_half_width"],
            mean_pairwise_kendall_tau=entry["mean_pairwise_kendall_tau"], consistency=entry["consistency_0_100"],
            consistency_stats=entry["consistency_stats"], invalid_count=entry["invalid_count"],
            failure_counts={"unparseable": 1, "not_a_permutation": 2},
        )  # fmt: skip
    handmade = LLMModel.objects.create(slug="lab/handmade", name="Handmade", model_id="handmade")
    ModelProfile.objects.create(model=handmade, source="admin", runs=4, profile_stats={"wisdom": {"mean": 61.0}})


def _old_choice_run(apps, model, vectors, *, status="finished", method="logprobs"):
    ChoiceRun = apps.get_model("transitivity", "ChoiceRun")
    ChoiceItem = apps.get_model("transitivity", "ChoiceItem")
    Instrument = apps.get_model("transitivity", "TransitivityInstrument")
    blocks = sorted({block for block, _ in vectors})
    run = ChoiceRun.objects.create(
        model=model, instrument=Instrument.objects.get(), method=method, seed=7, blocks=blocks,
        orders=["original", "reversed"], status=status, items_total=len(vectors) * 21,
    )  # fmt: skip
    for (block, order), vector in vectors.items():
        for (x, y), p in zip(pairs(7), vector, strict=True):
            first, second = (CODES[x], CODES[y]) if order == 1 else (CODES[y], CODES[x])
            shown_first = None if p is None else (p if order == 1 else 1 - p)
            ChoiceItem.objects.create(
                run=run, block_id=block, principle_x_id=CODES[x], principle_y_id=CODES[y],
                order="original" if order == 1 else "reversed", situation_1_id=first, situation_2_id=second,
                status="done", method=method, probability=p, missing=p is None,
                missing_reason="neither label" if p is None else "",
                label_1_mass=None if p is None else 0.9 * shown_first,
                label_2_mass=None if p is None else 0.9 * (1 - shown_first),
                retained_mass=None if p is None else 0.9,
                top_logprobs=[{"token": "1", "logprob": -0.5}] if method == "logprobs" else [],
                raw_response={"answers": [{"text": "1"}, {"text": "2"}]} if method == "sampling" else {"id": "x"},
                sample_counts={"1": 1, "2": 1, "other": 0} if method == "sampling" else {},
                attempts=[{"at": "2026-06-10T10:00:00+00:00", "latency_ms": 5.0, "error": None, "sample": s}
                          for s in range(2)] if method == "sampling"
                else [{"at": "2026-06-10T10:00:00+00:00", "latency_ms": 5.0, "error": None}],
            )  # fmt: skip
    return run


def _old_content(apps) -> None:
    """The VirtueMap instrument and its published key, as the schema before the move stored them (in `surveys`)."""
    data = json.loads(
        (Path(__file__).resolve().parents[2] / "instruments/virtuemap/fixtures/instrument.json").read_text()
    )
    get = lambda name: apps.get_model("surveys", name)  # noqa: E731
    get("Instrument").objects.create(slug=data["instrument"], version=data["version"], source=data["source"],
                                     llm_prompt_template=data["llm_prompt_template"]["user"])  # fmt: skip
    for position, virtue in enumerate(data["virtues"], start=1):
        get("Virtue").objects.create(id=virtue["id"], name=virtue["name"], greek_name=virtue["greek"],
                                     short_definition=virtue["short_definition"], definition=virtue["definition"],
                                     position=position)  # fmt: skip
    for position, dilemma in enumerate(data["dilemmas"], start=1):
        row = get("Dilemma").objects.create(id=dilemma["id"], title=dilemma["title"], scenario=dilemma["scenario"],
                                            position=position)  # fmt: skip
        for letter, text in dilemma["options"].items():
            get("Option").objects.create(dilemma=row, letter=letter, text=text)
    for dilemma, by_virtue in data["published_key"].items():
        for virtue, ordering in by_virtue.items():
            get("KeyCandidate").objects.create(dilemma_id=dilemma, virtue_id=virtue, ordering="".join(ordering),
                                               round=0, status="retained", provenance="published")  # fmt: skip


def _old_respondent(apps):
    ConsentText = apps.get_model("surveys", "ConsentText")
    text = ConsentText.objects.create(study="validation", version="1", title="t", information_sheet="i",
                                      consent_statement="c", text_hash="0" * 64, is_current=True)  # fmt: skip
    return apps.get_model("surveys", "Respondent").objects.create(
        study="validation", consent_text=text, consent_version="1", consent_text_hash="0" * 64,
        consented_at="2026-06-01T10:00:00+00:00",
    )  # fmt: skip


def test_migrating_forward_keeps_every_suite_item_profile_choice_and_respondent(settings):
    from instruments.transitivity.services import transitivity_instrument_load_file

    old = migrate_to(BEFORE)
    _old_content(old)
    # The transitivity content tables did not change between the two schemas, so today's loader fills them.
    transitivity_instrument_load_file()
    respondent = _old_respondent(old)
    suites = _old_suites(old)
    _old_profiles(old, suites)
    LLMModel = old.get_model("llmruns", "LLMModel")
    alpha = LLMModel.objects.create(slug="acme/alpha", name="Alpha", model_id="alpha")
    alpha_vectors = vectors_for_model(3, blocks=[1, 2])
    alpha_vectors[2, 2] = [*alpha_vectors[2, 2][:20], None]  # one missing choice
    _old_choice_run(old, alpha, alpha_vectors)
    beta = LLMModel.objects.create(slug="beta", name="Beta", model_id="beta", top_logprobs=0)
    _old_choice_run(old, beta, vectors_for_model(4, blocks=[3]), method="sampling")
    _old_choice_run(old, beta, {(4, 1): [0.5] * 21}, status="running")
    counts_before = {
        "items": old.get_model("llmruns", "ItemResponse").objects.count(),
        "attempts": sum(
            len(a) for a in old.get_model("llmruns", "ItemResponse").objects.values_list("attempts", flat=True)
        ),
        "choices": old.get_model("transitivity", "ChoiceItem").objects.count(),
    }

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    from llmruns.models import Attempt, Result, Run, Trial
    from llmruns.models import LLMModel as Model
    from surveys.models import Respondent

    assert Run.objects.filter(instrument="virtuemap").count() == 3
    assert set(Run.objects.filter(instrument="virtuemap").values_list("pk", flat=True)) == set(suites.values())
    assert Trial.objects.filter(run__instrument="virtuemap").count() == counts_before["items"] == 98
    assert Attempt.objects.filter(trial__run__instrument="virtuemap").count() == counts_before["attempts"]
    assert Trial.objects.filter(run__instrument="transitivity").count() == counts_before["choices"] == 21 * 7
    assert Model.objects.get(slug="openai/gpt-5").constrained_decoding is True
    assert Run.objects.get(pk=suites["openai/gpt-5"]).request_params["constrained_decoding"] is True
    assert Respondent.objects.filter(pk=respondent.pk).exists()

    # A re-ask keeps each request with the conversation it was sent, and the shared status names.
    reasked = Trial.objects.get(attempts__status="off_scale")
    first, second, third = reasked.attempts.order_by("number")
    assert (first.status, first.counts_as_answer, second.status, third.status) == (
        "provider_error",
        False,
        "off_scale",
        "valid",
    )
    assert len(third.messages) == 3 and third.messages[1]["content"] == '{"ranking":["1","1"]}'
    assert "1 repeated" in third.messages[2]["content"]

    out = io.StringIO()
    call_command("show_profiles", "--format", "json", stdout=out)
    shown = {entry["slug"]: entry for entry in json.loads(out.getvalue())["models"]}
    reference = json.loads((DATA / "reference_profiles_sample.json").read_text())["models"]
    for entry in reference:
        assert shown[entry["slug"]]["runs"] == entry["runs"]
        assert shown[entry["slug"]]["profile"] == pytest.approx(entry["profile"], abs=1e-6)
        assert shown[entry["slug"]]["consistency_0_100"] == pytest.approx(entry["consistency_0_100"], abs=1e-6)

    profiles = Result.objects.filter(instrument="virtuemap")
    assert profiles.count() == 4
    gpt = profiles.get(model__slug="openai/gpt-5")
    assert gpt.run_id == suites["openai/gpt-5"] and gpt.source == "import"
    assert gpt.summary["failure_counts"] == {"unparseable": 1, "off_scale": 2}
    assert gpt.dependencies["keys"] and profiles.get(model__slug="lab/handmade").dependencies == {}

    alpha_result = Result.objects.get(instrument="transitivity", model__slug="acme/alpha")
    expected = subject_results(
        alternatives=CODES,
        vectors={(b, "original" if o == 1 else "reversed"): v for (b, o), v in alpha_vectors.items()},
    )
    assert [v["p"] for v in alpha_result.summary["vectors"]] == [v["p"] for v in expected["vectors"]]
    for stored, tested in zip(alpha_result.summary["vectors"], expected["vectors"], strict=True):
        assert stored["result"] == json.loads(json.dumps(tested["result"]))
    assert alpha_result.summary["vectors"][3]["result"] is None  # the vector with the missing choice
    sampled = Trial.objects.filter(
        run__instrument="transitivity", run__model__slug="beta", run__status="finished"
    ).first()
    assert sampled.attempts.count() == 2 and sampled.answer["counts"] == {"1": 1, "2": 1, "other": 0}
    unfinished = Run.objects.get(instrument="transitivity", status="running")
    assert unfinished.heartbeat_at is not None and unfinished.trials_total == 21
