"""VirtueMap's published protocols by name: the original run-suite's (the default) and the paper's Appendix B, each
sent as published, read and re-asked its way, stored with the run, and kept apart wherever two results compare."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from instruments.virtuemap.parsing import parse_ranking_original
from llmruns.models import Attempt, Result, Run, Trial
from llmruns.testing import Reply

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[3] / "instruments" / "virtuemap" / "fixtures"
PROTOCOLS = json.loads((FIXTURES / "run_protocols.json").read_text(encoding="utf-8"))["protocols"]
ITEMS = {item["id"]: item for item in json.loads((FIXTURES / "instrument.json").read_text())["dilemmas"]}
ORDINALS = ("first", "second", "third", "fourth", "fifth")


def _run(model, *options: str) -> Run:
    call_command(
        "run_instrument", "virtuemap", "--model", model.slug, "--min-runs", "1", "--max-runs", "1", *options,
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    return Run.objects.get()


def _shown(trial: Trial) -> list[str]:
    options = ITEMS[trial.item]["options"]
    return [options[trial.display["display_to_option"][position]] for position in "12345"]


def _first_request(fake_provider, trial: Trial) -> list[dict]:
    return next(body["messages"] for body in fake_provider.requests if body["messages"] == trial.messages)


def test_a_run_asks_the_original_suites_messages_byte_for_byte_by_default(instrument, fake_model, fake_provider):
    run = _run(fake_model)

    assert run.plan["protocol"] == "original" and run.plan["max_attempts"] == 8
    trial = run.trials.get(item="D3")
    system, user = PROTOCOLS["original"]["messages"]
    expected = user["content"].replace("{scenario}", ITEMS["D3"]["scenario"])
    for ordinal, text in zip(ORDINALS, _shown(trial), strict=True):
        expected = expected.replace(f"{{response shown {ordinal}}}", text)
    sent = _first_request(fake_provider, trial)
    assert sent == [{"role": "system", "content": system["content"]}, {"role": "user", "content": expected}]
    assert sent[1]["content"].encode() == expected.encode()
    assert sent[1]["content"].endswith('{"ranking":["1","2","3","4","5"]}')
    assert fake_provider.requests[0]["temperature"] == 0.7


def test_the_paper_protocol_asks_appendix_bs_template_with_letters_on_one_line(instrument, fake_model, fake_provider):
    run = _run(fake_model, "--protocol", "paper")

    assert run.plan["protocol"] == "paper"
    trial = run.trials.get(item="D1")
    [user] = PROTOCOLS["paper"]["messages"]
    expected = user["content"].replace("{scenario}", ITEMS["D1"]["scenario"])
    for letter, text in zip("ABCDE", _shown(trial), strict=True):
        expected = expected.replace(f"{{response {letter}}}", text)
    assert _first_request(fake_provider, trial) == [{"role": "user", "content": expected}]
    assert "Responses: A. " in expected and '{"ranking":["A","B","C","D","E"]}' in expected


def test_an_unusable_answer_is_asked_again_by_appending_the_suites_message(instrument, fake_model, fake_provider):
    fake_provider.queue(Reply(content="I would rather not say."))
    run = _run(fake_model)

    retried = Trial.objects.get(run=run, attempt_count=2)
    first, second = Attempt.objects.filter(trial=retried).order_by("number")
    reask = PROTOCOLS["original"]["re_ask"].split("): ", 1)[1]
    # The first request again with the re-ask appended; the unusable reply is not sent back.
    assert second.messages == [*first.messages, {"role": "user", "content": reask}]
    assert retried.valid


def test_a_dilemma_gets_up_to_eight_answers(instrument, fake_model, fake_provider):
    fake_provider.queue(*[Reply(content="no") for _ in range(8)])
    fake_model.concurrency = 1
    fake_model.save()
    run = _run(fake_model)

    assert max(run.trials.values_list("attempt_count", flat=True)) == 8


def test_an_unknown_protocol_is_refused(instrument, fake_model):
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="--protocol: letters is not one of original, paper"):
        _run(fake_model, "--protocol", "letters")
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    ("text", "ranking"),
    [
        ('{"ranking":["3","5","2","1","4"]}', ("3", "5", "2", "1", "4")),
        ('Sure. {"ranking": [3, 5, 2, 1, 4]} Thanks.', ("3", "5", "2", "1", "4")),
        ('{"ranking":["C","E","B","A","D"]}', ("3", "5", "2", "1", "4")),
        ("My ranking: 3, 5, 2, 1, 4", ("3", "5", "2", "1", "4")),
    ],
)
def test_the_original_parsing_reads_json_letters_as_positions_and_bare_tokens(text, ranking):
    assert parse_ranking_original(text).display_ranking == ranking


@pytest.mark.parametrize(
    "text", ['{"ranking":["1","1","2","3","4"]}', '{"ranking":["option 1","2","3","4","5"]}', "no"]
)
def test_the_original_parsing_accepts_only_a_permutation_of_the_five_labels(text):
    assert not parse_ranking_original(text).valid


def test_results_of_different_protocols_are_marked_not_comparable(
    instrument, fake_model, client, api_client, admin_user
):
    _run(fake_model)
    Result.objects.create(model=fake_model, instrument="virtuemap", source="run", summary={}, protocol="original")
    from llmruns.models import LLMModel

    other = LLMModel.objects.create(slug="other/model", name="Other", model_id="other")
    Result.objects.create(model=other, instrument="virtuemap", source="admin", summary={}, protocol="paper")

    page = client.get("/compare/?models=fake/model,other/model").content.decode()
    assert "data-not-comparable" in page and "original, paper" in page
    assert "data-not-comparable" in client.get("/leaderboards/virtuemap/").content.decode()
    api_client.force_authenticate(admin_user)
    compared = api_client.get("/api/v1/compare/?models=fake/model,other/model").json()["comparable"]["virtuemap"]
    assert compared["comparable"] is False and compared["protocols"] == {
        "fake/model": "original",
        "other/model": "paper",
    }
