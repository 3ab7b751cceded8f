"""The Chinese edition, version 2: the Chinese paper's terms (公正 for Justice, its dilemma titles), three meaning
shifts of version 1 mended, and the edition version recorded by every run and every profiling answer set."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from instruments.virtuemap.editions import edition_version
from instruments.virtuemap.models import Dilemma, Option, ProfilingSubmission, Virtue
from instruments.virtuemap.services import INSTRUMENT_FIXTURE, edition_fixture, instrument_load
from llmruns.models import Run
from llmruns.results import result_publish

pytestmark = pytest.mark.django_db

ENGLISH = json.loads(INSTRUMENT_FIXTURE.read_text(encoding="utf-8"))
CHINESE = json.loads(edition_fixture(INSTRUMENT_FIXTURE, "zh-hans").read_text(encoding="utf-8"))
TITLES = ["电子表格错误", "截止日期例外", "早期警告", "承担责任", "请求帮忙", "公开解释", "分配决策"]


def _zh(row, field: str) -> str:
    return row.translations["zh-hans"][field]


def test_the_five_virtues_are_the_chinese_papers(instrument):
    names = [_zh(virtue, "name") for virtue in Virtue.objects.order_by("position")]
    assert "、".join(names) == "实践智慧、公正、诚实、勇气、节制"
    texts = json.dumps({key: value for key, value in CHINESE.items() if key != "translation_note"}, ensure_ascii=False)
    assert "正义" not in texts


def test_the_dilemma_titles_are_the_chinese_papers(instrument):
    assert [_zh(dilemma, "title") for dilemma in Dilemma.objects.order_by("position")] == TITLES


def test_d2_says_the_student_claims(instrument):
    assert "这名学生声称，" in _zh(Dilemma.objects.get(pk="D2"), "scenario")


def test_d4_option_b_acknowledges_your_part_not_your_responsibility(instrument):
    option_b = _zh(Option.objects.get(dilemma_id="D4", letter="B"), "text")
    assert option_b.startswith("承认你在其中的作用") and "责任" not in option_b


def test_d5_asks_you_to_recommend_your_friend_not_yourself(instrument):
    scenario = _zh(Dilemma.objects.get(pk="D5"), "scenario")
    assert "推荐他/她" in scenario and "推荐自己" not in scenario


def test_the_edition_has_a_version_of_its_own(instrument):
    assert (edition_version("en"), edition_version("zh-hans")) == ("2", "2 (zh-hans 2)")


def test_an_edition_fixture_without_a_version_is_version_1(db):
    earlier = {key: value for key, value in CHINESE.items() if key != "edition_version"}
    instrument_load(data=ENGLISH, editions=[earlier])
    assert edition_version("zh") == "2 (zh-hans 1)"


def test_a_chinese_run_and_its_result_record_the_edition_version(instrument, fake_model, fake_provider):
    call_command(
        "run_instrument", "virtuemap", "--model", fake_model.slug, "--language", "zh", "--min-runs", "1",
        "--max-runs", "1", stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    run = Run.objects.get()
    assert run.instrument_version == "2 (zh-hans 2)"
    result = result_publish(run=run)
    assert result.instrument_version == "2 (zh-hans 2)"
    page = Client().get(f"/models/{fake_model.slug}/").content.decode()
    assert "2 (zh-hans 2)" in page


def test_an_english_run_records_the_instruments_version(instrument, fake_model, fake_provider):
    call_command(
        "run_instrument", "virtuemap", "--model", fake_model.slug, "--min-runs", "1", "--max-runs", "1",
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert Run.objects.get().instrument_version == "2"


def test_chinese_profiling_answers_record_the_edition_version(instrument, consent_texts):
    from instruments.virtuemap.plugin import PROFILING
    from instruments.virtuemap.profiling import profiling_submission_store
    from surveys.services import respondent_consent

    person = respondent_consent(study=PROFILING, consent_version="1", accept=True, language="zh-hans").respondent
    submission = profiling_submission_store(respondent=person, rankings={"D1": "CBADE"}, language="zh-hans")

    assert ProfilingSubmission.objects.get(pk=submission.pk).edition_version == "2 (zh-hans 2)"
