"""The other instruments and the cross-instrument pages in Simplified Chinese: with ?lang=zh-hans the about pages, the
questionnaires (start, item, results), the model reports, the model page, the comparison and the leaderboards speak
Chinese, and the pages of an instrument whose items exist only in English say so in Chinese; in English nothing
changes and no such notice is shown."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from instruments.base import Identity, items_language_notice
from surveys.services import consent_text_install_defaults
from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

pytestmark = pytest.mark.django_db

ZH = "?lang=zh-hans"
CHINESE_PAGE = '<html lang="zh-hans">'
ITEMS_IN_ENGLISH = "的题目为英文，仅界面经过翻译。"
GPT = "openai/gpt-5"


@pytest.fixture
def loaded(transitivity_instrument, settings):
    """The three instruments' items and the default consent texts; questionnaires take every answer at once."""
    from instruments.amaeval.services import amaeval_instrument_load_file
    from instruments.moralbench.services import moralbench_load_file

    moralbench_load_file()
    amaeval_instrument_load_file()
    consent_text_install_defaults()
    settings.STUDY_SUBMIT_RATE = "off"
    settings.TRANSITIVITY_REPETITIONS = 1


@pytest.fixture
def transitivity_model(published_models, transitivity_instrument):
    """GPT, one of the reference models, also measured on the transitivity test."""
    from llmruns.models import LLMModel

    model = LLMModel.objects.get(slug=GPT)
    return choice_run_store(slug=GPT, name=model.name, vectors=vectors_for_model(1), model=model)


def _chinese(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    page = response.content.decode()
    assert CHINESE_PAGE in page, url
    return page


def _position(page: str) -> int:
    return int(re.search(r'name="position" value="(\d+)"', page).group(1))


def test_the_notice_names_the_items_language_only_when_the_interface_is_in_another():
    english_only = Identity(slug="toy", name="Toy", version="1", citation="")
    bilingual = Identity(slug="toy", name="Toy", version="1", citation="", languages=("en", "zh-hans"))
    with translation.override("zh-hans"):
        assert items_language_notice(english_only) == "Toy 的题目为英文，仅界面经过翻译。"
        assert items_language_notice(bilingual) == ""
    with translation.override("en"):
        assert items_language_notice(english_only) == ""


@pytest.mark.parametrize(
    ("url", "chinese"),
    [
        ("/transitivity/", "在道德原则之间的选择能否排出一个顺序？"),
        ("/moralbench/", "四个题组"),
        ("/amaeval/", "AMAeval：评定与生成道德推理"),
    ],
)
def test_an_about_page_is_in_chinese_and_says_its_items_are_in_english(client, loaded, url, chinese):
    page = _chinese(client, url + ZH)
    assert chinese in page and ITEMS_IN_ENGLISH in page


@pytest.mark.parametrize("url", ["/transitivity/", "/moralbench/", "/amaeval/"])
def test_an_about_page_in_english_is_unchanged_and_has_no_notice(client, loaded, url):
    page = client.get(url + "?lang=en").content.decode()
    assert '<html lang="en">' in page and "data-items-language" not in page and "题目" not in page


def test_the_pairwise_questionnaire_in_chinese_start_item_refusal_and_results(client, loaded):
    start = _chinese(client, "/transitivity/questionnaire/?block=3&lang=zh-hans")
    assert "请选出你认为在道德上更坏的一个" in start and ITEMS_IN_ENGLISH in start
    assert "哪个情境在道德上更坏？" in start  # the questionnaire's title
    client.post("/transitivity/questionnaire/", {"agree": "on", "accept": "1", "block": "3"})
    item = _chinese(client, "/transitivity/questionnaire/next/")
    assert "情境 1" in item and "情境 2" in item and ITEMS_IN_ENGLISH in item
    refused = client.post("/transitivity/questionnaire/next/", {"position": str(_position(item))})
    assert refused.status_code == 400 and "请选择情境 1 或情境 2。" in refused.content.decode()
    client.post("/transitivity/questionnaire/next/", {"position": str(_position(item)), "situation": "1"})
    results = _chinese(client, "/transitivity/questionnaire/results/")
    assert "你的选择，第 3 区组" in results and "各区组与呈现顺序的判定" in results


def test_the_moralbench_questionnaire_in_chinese(client, loaded):
    start = _chinese(client, "/moralbench/questionnaire/?sets=MFQ_30&lang=zh-hans")
    assert "共 20 道简短的题目" in start and ITEMS_IN_ENGLISH in start
    client.post("/moralbench/questionnaire/", {"agree": "on", "accept": "1", "sets": "MFQ_30"})
    item = _chinese(client, "/moralbench/questionnaire/next/")
    assert "你的回答" in item and ITEMS_IN_ENGLISH in item
    refused = client.post("/moralbench/questionnaire/next/", {"position": str(_position(item))})
    assert "请在两个答案中选择一个。" in refused.content.decode()
    client.post("/moralbench/questionnaire/next/", {"position": str(_position(item)), "choice": "A"})
    results = _chinese(client, "/moralbench/questionnaire/results/")
    assert "你的道德基础得分" in results and "你回答了 1 道题目中的 1 道" in results and "总分" in results


def test_the_amaeval_questionnaire_in_chinese(client, loaded):
    start = _chinese(client, "/amaeval/questionnaire/?lang=zh-hans")
    assert "评定关于日常情境的简短道德推理" in start and ITEMS_IN_ENGLISH in start
    client.post("/amaeval/questionnaire/", {"agree": "on", "accept": "1"})
    item = _chinese(client, "/amaeval/questionnaire/next/")
    assert "第 1 部分（共 2 部分）" in item and "推理令人信服" in item and ITEMS_IN_ENGLISH in item
    refused = client.post("/amaeval/questionnaire/next/", {"position": str(_position(item))})
    assert "请选择 1 到 4 的评分，或选择 N/A。" in refused.content.decode()
    client.post("/amaeval/questionnaire/next/", {"position": str(_position(item)), "rating": "3"})
    results = _chinese(client, "/amaeval/questionnaire/results/")
    assert "你的评分与标注者评分对照" in results and "推导准则（1–4 或 N/A）" in results


def test_the_questionnaires_in_english_are_unchanged(client, loaded):
    start = client.get("/moralbench/questionnaire/?sets=MFQ_30&lang=en").content.decode()
    assert "20 short questions" in start and "data-items-language" not in start
    client.post("/moralbench/questionnaire/", {"agree": "on", "accept": "1", "sets": "MFQ_30"})
    item = client.get("/moralbench/questionnaire/next/").content.decode()
    assert "Your answer" in item and "data-items-language" not in item


def test_a_model_report_of_the_transitivity_test_is_in_chinese(client, transitivity_model):
    models = _chinese(client, "/transitivity/models/" + ZH)
    assert "语言模型比较" in models and "各模型的汇总选择集" in models
    report = _chinese(client, f"/transitivity/models/{GPT}/{ZH}")
    assert "传递性报告" in report and "排序与违反三元组" in report and "原始顺序" in report


def test_the_model_page_comparison_and_leaderboards_are_in_chinese(client, transitivity_model):
    model = _chinese(client, f"/models/{GPT}/{ZH}")
    assert "与其他模型比较" in model and "工具版本" in model and "传递性检验" in model
    compare = _chinese(client, f"/compare/?models={GPT}&models=anthropic/claude-sonnet-4.6&lang=zh-hans")
    assert "比较模型" in compare and "差值" in compare and "可区分" in compare
    boards = _chinese(client, "/leaderboards/" + ZH)
    assert "排行榜" in boards and "传递性检验" in boards
    board = _chinese(client, "/leaderboards/transitivity/" + ZH)
    assert "← 全部排行榜" in board and "均值" in board


def test_the_cross_instrument_pages_in_english_are_unchanged(client, transitivity_model):
    model = client.get(f"/models/{GPT}/?lang=en").content.decode()
    assert "Compare with other models" in model and "Transitivity test" in model and "传递性" not in model
    boards = client.get("/leaderboards/?lang=en").content.decode()
    assert "<h1>Leaderboards</h1>" in boards


def test_an_api_error_of_the_transitivity_test_is_in_chinese_for_a_chinese_client(api_client):
    body = {"alternatives": ["a", "b", "c"], "vectors": [[0.5, 1.5, 0.5]]}
    chinese = api_client.post("/api/v1/transitivity/test/", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert chinese.status_code == 400
    assert chinese.json()["message"] == "第 0 个向量的第 1 个元素（P(a ≻ c)）为 1.5，超出 [0, 1]"
    english = api_client.post("/api/v1/transitivity/test/", body, format="json")
    assert english.json()["message"] == "vector 0, entry 1 (P(a ≻ c)) is 1.5, outside [0, 1]"


def test_an_api_error_of_the_moralbench_score_is_in_chinese_with_lang(client, loaded):
    response = client.post(
        "/api/v1/instruments/moralbench/score/?lang=zh-hans",
        {"answers": {"MFQ_30/nothing": "A"}},
        content_type="application/json",
    )
    assert response.status_code == 400 and response.json()["message"] == "MFQ_30/nothing：没有这道题目"


def test_the_instruments_api_names_the_instruments_in_the_requested_language(client):
    by_slug = {row["slug"]: row for row in client.get("/api/v1/instruments/?lang=zh-hans").json()}
    assert by_slug["transitivity"]["name"] == "传递性检验"
    assert by_slug["transitivity"]["languages"] == ["en"]  # its items are English only
    english = {row["slug"]: row for row in client.get("/api/v1/instruments/?lang=en").json()}
    assert english["transitivity"]["name"] == "Transitivity test"


def test_the_transitivity_principles_are_named_and_defined_in_chinese(client, transitivity_instrument):
    chinese = client.get("/transitivity/" + ZH).content.decode()
    english = client.get("/transitivity/?lang=en").content.decode()

    assert (
        "关爱（情感）" in chinese and "关心他人的感受" in chinese and "Care for the feelings of others" not in chinese
    )
    assert "Care-emotional" in english and "Care for the feelings of others" in english


def test_amaeval_names_its_moral_values_in_chinese(client, loaded):
    chinese = client.get("/amaeval/" + ZH).content.decode()
    english = client.get("/amaeval/?lang=en").content.decode()

    assert "（权威, 关爱, 公平, 忠诚, 圣洁）" in chinese and "Authority" not in chinese
    assert "(Authority, Care, Fairness, Loyalty, Sanctity)" in english


def test_every_study_is_named_in_chinese_where_a_participant_reads_its_name():
    from instruments import registry
    from surveys.views import _study_name

    for slug in registry.studies():
        with translation.override("zh-hans"):
            chinese = _study_name(slug)
        assert re.search(r"[\u4e00-\u9fff]", chinese), f"{slug}: {chinese!r}"


def test_a_whole_pairwise_block_names_the_principles_in_chinese_in_the_results(client, loaded):
    _chinese(client, "/transitivity/questionnaire/?block=3&lang=zh-hans")
    client.post("/transitivity/questionnaire/", {"agree": "on", "accept": "1", "block": "3"})
    for _ in range(60):  # bounded: a block is 21 pairs
        item = client.get("/transitivity/questionnaire/next/")
        if item.status_code != 200 or 'name="position"' not in item.content.decode():
            break
        position = _position(item.content.decode())
        client.post("/transitivity/questionnaire/next/", {"position": str(position), "situation": "1"})
    results = _chinese(client, "/transitivity/questionnaire/results/")

    assert re.search(r"<strong>(权威|关爱（情感）|关爱（身体）|公平|自由|忠诚|圣洁)</strong>", results)
    assert not re.search(
        r"<strong>(Authority|Care-emotional|Care-physical|Fairness|Liberty|Loyalty|Sanctity)</strong>", results
    )
