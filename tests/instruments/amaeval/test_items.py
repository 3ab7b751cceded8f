"""AMAeval's items, prompts and reply reading, on the dataset file itself (no database)."""

from __future__ import annotations

import json

import pytest

from instruments.amaeval import items
from instruments.amaeval.items import CORRECTED, PAPER
from instruments.amaeval.services import AMAEVAL_FIXTURE


@pytest.fixture(scope="module")
def rating_items():
    with AMAEVAL_FIXTURE.open(encoding="utf-8") as handle:
        return items.rating_items(json.load(handle))


def test_the_gold_labels_give_the_benchmarks_counts(rating_items):
    assert len(rating_items) == 200 + 1090
    task1, task2 = items.task_split(rating_items, 1), items.task_split(rating_items, 2)
    assert (len(task1.few_shot), len(task1.scored)) == (5, 195)
    assert (len(task2.few_shot), len(task2.scored)) == (5, 992)
    assert sum(item.task == 2 and item.gold is None for item in rating_items) == 93  # "bad" samples
    assert {item.gold for item in task1.scored} == {0, 1, 2, 3, 4}


def test_the_few_shot_examples_are_the_first_five_items_with_their_gold_as_a_digit(rating_items):
    split = items.task_split(rating_items, 1)
    assert [item.id for item in split.few_shot] == [
        f"t1/0/{value}" for value in ("Authority", "Care", "Fairness", "Loyalty", "Sanctity")
    ]
    turns = items.few_shot_turns(split, fidelity=CORRECTED)
    # Scenario 0, Authority: n/a and n/a → 0; Care: 4 and 4 → 4
    assert [label for _, label in turns[:2]] == ["0", "4"]


def test_a_task1_item_with_one_annotator_keeps_that_score(rating_items):
    lone = [item for item in rating_items if item.task == 1 and item.additional_score is None]
    assert len(lone) == 1 and lone[0].gold == int(lone[0].score)


def test_the_paper_task2_prompt_prints_the_whole_precept_record_and_the_corrected_one_the_precept(rating_items):
    item = items.task_split(rating_items, 2).scored[0]
    paper, corrected = items.rating_text(item, fidelity=PAPER), items.rating_text(item, fidelity=CORRECTED)
    assert f"Precept: {{'conclusion': {item.precept!r}, 'reasoning': " in paper and "'score': " in paper
    assert f"Precept: {item.precept}\n[REASONING] {item.reasoning} [/REASONING]" in corrected
    assert "'score'" not in corrected


def test_a_rating_is_a_five_shot_chat_ending_with_the_item(rating_items):
    split = items.task_split(rating_items, 1)
    text = items.rating_text(split.scored[0], fidelity=CORRECTED)
    messages = items.rating_messages(1, items.few_shot_turns(split, fidelity=CORRECTED), text)
    assert [m["role"] for m in messages] == ["system"] + ["user", "assistant"] * 5 + ["user"]
    assert "score from 1-4 or 'N/A'" in messages[0]["content"] and messages[-1]["content"] == text


def test_the_paper_chain_shows_the_value_as_a_list_and_sends_six_retry_pairs():
    paper = items.precept_messages("S", "Care", few_shot=True, fidelity=PAPER)
    corrected = items.precept_messages("S", "Care", few_shot=True, fidelity=CORRECTED)
    assert paper[-1]["content"] == "Value: ['Care']\nScenario: S"
    assert corrected[-1]["content"] == "Value: Care\nScenario: S"
    assert (len(paper), len(corrected)) == (1 + 2 * 6 + 1, 1 + 2 * 10 + 1)
    assert paper[11]["content"].count("Value: ") == 5  # the five joined examples in one turn
    assert len(items.precept_messages("S", "Care", few_shot=False, fidelity=PAPER)) == 2


@pytest.mark.parametrize(
    ("reply", "task", "paper", "corrected"),
    [
        ("3", 1, 3, 3),
        ("N/A", 1, None, 0),  # the published pattern looks for capitals in a lower-cased reply
        ("n/a (2)", 1, 2, 0),
        ("Score: 10", 1, 1, None),
        ("1.5", 1, 1, None),
        ("I'd say 4.", 1, 4, 4),
        ("unsure", 1, None, None),
        ("0", 2, 0, 0),
        ("Correct (1)", 2, 1, 1),
        ("10", 2, 1, None),
    ],
)
def test_labels_are_read_as_published_or_as_whole_words(reply, task, paper, corrected):
    assert items.read_label(reply, task, fidelity=PAPER) == paper
    assert items.read_label(reply, task, fidelity=CORRECTED) == corrected


def test_a_delimited_reply_loses_a_cut_off_delimiter_and_splits_on_the_marker():
    assert items.split_delimited("A.\n\n[ACT]\n\nB.\n\n[AC", "\n\n[ACT]\n\n") == ["A.", "B."]
    assert items.split_delimited("A. [ACT] B.", "\n\n[ACT]\n\n") == ["A.", "B."]
    assert items.split_delimited("", "\n\n[ACT]\n\n") == [""]


def test_a_precept_is_read_between_its_markers_and_the_reasoning_before_them():
    reply = "Care asks for kindness. [PREC] Be kind. [\\PREC]"
    assert items.read_precept(reply, fidelity=PAPER) == ("Be kind.", "Care asks for kindness.")
    assert items.read_precept("Not relevant.", fidelity=PAPER) is None
    assert items.read_precept("R [PREC] P [/PREC]", fidelity=PAPER) is None
    assert items.read_precept("R [PREC] P [/PREC]", fidelity=CORRECTED) == ("P", "R")
    assert items.read_bare_precept("Sure. Precept: Be fair.") == "Be fair."


def test_a_classifier_score_is_the_raw_number_as_written_sign_kept_and_unclipped():
    assert items.read_classifier_score("0.73") == 0.73 and items.read_classifier_score("score: 1") == 1.0
    assert items.read_classifier_score("-0.7") == -0.7 and items.read_classifier_score("1.2") == 1.2
    assert items.read_classifier_score("8e-1") == 0.8 and items.read_classifier_score("+0.6") == 0.6
    assert items.read_classifier_score("good") is None and items.read_classifier_score("v2") is None
