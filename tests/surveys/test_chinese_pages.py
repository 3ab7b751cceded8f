"""The people's pages every study shares, in Simplified Chinese: chosen with ?lang=zh-hans (or the browser's
Accept-Language), with the page's language, form errors and the API's error bodies in Chinese, and the English pages
as they were."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest
from django.db import OperationalError
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from surveys.forms import DemographicsForm
from surveys.services import consent_text_install_defaults
from tests.instruments.toy import STUDY

pytestmark = pytest.mark.django_db

START, ITEM, WITHDRAW = f"/take/{STUDY}/", f"/take/{STUDY}/next/", f"/take/{STUDY}/withdraw/"
CHINESE = '<html lang="zh-hans">'
ENGLISH = '<html lang="en">'


@pytest.fixture(autouse=True)
def toy_registered(settings):
    settings.INSTRUMENTS = settings.INSTRUMENTS | {"toy": "tests.instruments.toy.Toy"}
    settings.TEMPLATES = [
        {
            **settings.TEMPLATES[0],
            "DIRS": [*settings.TEMPLATES[0]["DIRS"], Path(__file__).parents[1] / "instruments" / "templates"],
        }
    ]
    consent_text_install_defaults()


@pytest.fixture(autouse=True)
def english_afterwards():
    # LocaleMiddleware leaves the last request's language active in this thread; later tests expect the default.
    yield
    translation.deactivate()


def page(client: Client, path: str, **kwargs) -> str:
    return client.get(path, **kwargs).content.decode()


def consented(client: Client) -> Client:
    client.get(f"{START}?lang=zh-hans")
    assert client.post(START, {"agree": "on", "accept": "1"}).status_code == 302
    return client


def test_the_consent_page_is_in_chinese(client):
    start = page(client, f"{START}?lang=zh-hans")
    assert CHINESE in start
    assert "我同意，开始" in start and "我不同意" in start
    assert "所需时间。" in start and "研究者" in start and "伦理审批" in start


def test_the_pages_of_the_participant_reference_are_in_chinese(client):
    withdraw = page(client, "/withdraw/?lang=zh-hans")
    assert CHINESE in withdraw and "<h1>凭参与者编号退出研究</h1>" in withdraw and "退出并删除我的回答" in withdraw
    assert "12 位字母和数字，例如 7KQ4-M2XD-9PBR。" in withdraw
    resume = page(client, "/resume/?lang=zh-hans")
    assert CHINESE in resume and "<h1>凭参与者编号继续作答</h1>" in resume


def test_a_questionnaire_item_is_in_chinese(client):
    item = page(consented(client), ITEM)
    assert CHINESE in item
    assert "共 3 项，已回答 0 项" in item and "下一页" in item and "你的回答已匿名保存" in item


def test_declining_says_in_chinese_that_nothing_was_stored(client):
    client.get(f"{START}?lang=zh-hans")
    declined = client.post(START, {"decline": "1"}).content.decode()
    assert CHINESE in declined and "<h1>没有保存任何信息</h1>" in declined and "你选择了不参与" in declined


def test_the_withdrawn_page_lists_what_was_deleted_in_chinese(client):
    withdrawn = consented(client).post(WITHDRAW).content.decode()
    assert CHINESE in withdrawn and "你的回答已删除" in withdrawn
    assert "已删除 2 条记录：" in withdrawn and "问卷会话</span>：<strong data-count>1<" in withdrawn
    assert "知情同意记录及选填信息" in withdrawn


def test_form_errors_come_back_in_chinese(client):
    client.get("/withdraw/?lang=zh-hans")
    refused = client.post("/withdraw/", {"reference": "not-a-reference"})
    assert refused.status_code == 400
    assert "这不是有效的参与者编号：编号由 12 位字母和数字组成" in refused.content.decode()
    unknown = client.post("/withdraw/", {"reference": "7KQ4-M2XD-9PBR"}).content.decode()
    assert "没有参与者持有这个编号" in unknown
    client.get(f"{START}?lang=zh-hans")
    assert "请勾选方框表示同意" in client.post(START, {"accept": "1"}).content.decode()


def test_the_optional_questions_are_asked_in_the_active_language():
    with translation.override("zh-hans"):
        form = DemographicsForm()
        assert form.fields["age_band"].label == "年龄"
        assert ("", "不愿透露") in form.fields["gender"].choices
        assert ("zh", "中文") in form.fields["native_language"].choices
    assert ("zh", "Chinese") in DemographicsForm().fields["native_language"].choices


def test_the_ranking_announces_its_moves_in_the_language_of_the_page():
    form = SimpleNamespace(initial_order="ABCDE", prefix="", non_field_errors=[], items=[])
    with translation.override("zh-hans"):
        ranking = render_to_string("components/ranking.html", {"form": form, "legend": "D1"})
    assert 'data-moved-message="选项 {letter} 现在位于第 {position} 位（共 5 位）。"' in ranking
    assert "为每个选项指定一个位置，从 1（最前）到 5（最后）。" in ranking


def test_an_api_error_comes_back_in_the_language_of_accept_language(client):
    chinese = client.get("/api/v1/no-such-thing/", headers={"accept-language": "zh-CN,zh;q=0.9"})
    assert chinese.json()["message"] == "/api/v1/no-such-thing/ 处没有 API 端点；所有操作列于 /api/docs/。"
    # Refused before LocaleMiddleware has run, still in the request's language.
    not_json = client.post(
        "/api/v1/profiles/score/", "x", content_type="text/plain", headers={"accept-language": "zh-hans"}
    )
    assert not_json.status_code == 415 and not_json.json()["message"].startswith("请以 JSON 格式发送请求体")
    english = client.get("/api/v1/no-such-thing/", headers={"accept-language": "en"})
    assert english.json()["message"].startswith("No API endpoint at /api/v1/no-such-thing/;")


def test_the_database_being_down_is_said_in_chinese(client):
    down = mock.patch("instruments.virtuemap.study_views.study_is_open", side_effect=OperationalError("refused"))
    with down:
        unavailable = client.get("/study/?lang=zh-hans")
    assert unavailable.status_code == 503
    assert CHINESE in unavailable.content.decode() and "<h1>暂时无法访问</h1>" in unavailable.content.decode()


def test_the_same_pages_stay_english_in_english(client):
    start = page(client, f"{START}?lang=en")
    assert ENGLISH in start and "I agree, start" in start and "How long it takes." in start
    withdraw = page(client, "/withdraw/")
    assert ENGLISH in withdraw and "<h1>Withdraw with your participant reference</h1>" in withdraw
    assert "12 letters and digits, like 7KQ4-M2XD-9PBR." in withdraw
    assert "<h1>Resume with your participant reference</h1>" in page(client, "/resume/")
    client.post(START, {"agree": "on", "accept": "1"})
    item = page(client, ITEM)
    assert ENGLISH in item and "0 of 3 answered" in item and "Next" in item
    withdrawn = client.post(WITHDRAW).content.decode()
    assert "Deleted 2 records:" in withdrawn and "consent record and optional details" in withdrawn
    assert "This is not a participant reference" in client.post("/withdraw/", {"reference": "x"}).content.decode()
