"""The VirtueMap instrument's interface in Simplified Chinese (issue 17): its pages with ?lang=zh-hans, a form error
and the score API's validation error in Chinese, and the same pages and messages in English as before."""

from __future__ import annotations

import pytest

from surveys.models import Respondent

pytestmark = pytest.mark.django_db

CHINESE = '<html lang="zh-hans">'
ENGLISH = '<html lang="en">'
TWO_FIRSTS = {"position_A": "1", "position_B": "1", "position_C": "3", "position_D": "4", "position_E": "5"}


def chinese(client, url: str) -> str:
    page = client.get(url, {"lang": "zh-hans"}).content.decode()
    assert CHINESE in page
    return page


@pytest.fixture
def consented(client, open_candidate):
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    return client


def test_the_study_landing_page_is_in_chinese(client, open_candidate):
    from instruments.virtuemap.validation import validation_open

    validation_open(pairs=[("D1", "wisdom")], language="zh-hans")  # the Chinese edition's study is open too
    page = chinese(client, "/study/")
    assert "请帮助我们检验各种回应如何体现美德" in page
    assert "大约需要 1 分钟。" in page and "你的回答是匿名的" in page
    assert "阅读研究说明" in page


def test_the_consent_page_is_in_chinese(client, open_candidate):
    from instruments.virtuemap.validation import validation_open

    validation_open(pairs=[("D1", "wisdom")], language="zh-hans")  # a closed edition's consent page takes no consent
    page = chinese(client, "/study/consent/")
    assert "研究说明" in page and "我同意，开始研究" in page and "我不同意" in page


def test_the_item_page_is_in_chinese(client, open_candidate):
    from instruments.virtuemap.validation import validation_open

    # Consent in Chinese: the items stay in the edition of the consent (an English one's stay English).
    validation_open(pairs=[("D1", "wisdom")], language="zh-hans")
    client.post("/study/consent/?lang=zh-hans", {"agree": "on", "accept": "1"})
    page = chinese(client, "/study/item/")
    assert "第 1 题，共 10 题" in page and "计分键验证研究" in page
    assert "拟定的排序：从最能体现到最不能体现" in page
    assert "提交我的更正" in page and "退出并删除我的回答" in page


def test_the_thanks_page_is_in_chinese(consented):
    Respondent.objects.update(completed_at="2026-01-01T00:00Z")
    page = chinese(consented, "/study/thanks/")
    assert "谢谢，你的回答已保存" in page and "你的完成码：" in page and 'aria-label="完成码"' in page


def test_the_profile_start_page_is_in_chinese(client, instrument, consent_texts):
    page = chinese(client, "/profile/")
    assert "你的美德画像" in page and "你将看到 7 个日常伦理困境" in page
    assert "我同意，开始" in page and "不保存任何内容，直接开始" in page


def test_the_dilemma_page_is_in_chinese(client, instrument):
    page = chinese(client, "/profile/dilemmas/D1/")
    assert "第 1 个困境，共 7 个" in page and "共 7 个，已回答 0 个，跳过 0 个" in page
    assert "保存我的排序" in page and "跳过这个困境" in page and "上一步" in page


def test_a_ranking_form_error_is_in_chinese(client, instrument):
    client.get("/profile/dilemmas/D1/", {"lang": "zh-hans"})
    page = client.post("/profile/dilemmas/D1/", {"action": "answer", **TWO_FIRSTS}).content.decode()
    assert CHINESE in page
    assert "请为每个回应指定不同的位置：每个位置只能放一个回应：A、B 都排在第 1 位。" in page


def test_the_results_page_is_in_chinese(client, instrument, published_models):
    client.post("/profile/dilemmas/D1/", {"action": "answer", "position_C": "1", "position_B": "2", "position_A": "3",
                                          "position_D": "4", "position_E": "5"})  # fmt: skip
    page = chinese(client, "/profile/results/")
    assert "你的得分" in page and "得分的含义" in page and "与你最接近的语言模型" in page
    assert "你的美德五边形图" in page and "得分范围为 0–100" in page


def test_the_gallery_is_in_chinese(client, published_models):
    page = chinese(client, "/models/")
    assert "语言模型画像" in page and "一致性" in page
    assert "最大 95% 置信区间半宽" in page and "的美德五边形图" in page


def test_the_score_api_words_its_validation_error_in_chinese_for_a_chinese_reader(api_client, instrument):
    response = api_client.post(
        "/api/v1/profiles/score/",
        {"rankings": {"D3": ["A", "A", "C", "D", "E"]}},
        format="json",
        headers={"accept-language": "zh-hans"},
    )
    assert response.status_code == 400
    assert response.json()["message"] == "D3: 'A' 出现了不止一次；缺少 'B'"
    # What programs read stays the same in every language.
    [error] = response.json()["extra"]["errors"]
    assert (error["dilemma"], error["problem"]) == ("D3", "repeats")


def test_the_english_pages_and_messages_are_unchanged(client, api_client, instrument, published_models):
    page = client.get("/profile/dilemmas/D1/", {"lang": "en"}).content.decode()
    assert ENGLISH in page and "Dilemma 1 of 7" in page and "Save my ranking" in page
    error = client.post("/profile/dilemmas/D1/", {"action": "answer", **TWO_FIRSTS}).content.decode()
    expected = "Please give each response its own position: each position can hold one response: A and B are both at"
    assert expected + " position 1." in error
    assert "Language-model profiles" in client.get("/models/").content.decode()
    body = api_client.post("/api/v1/profiles/score/", {"rankings": {"D3": ["A", "A", "C", "D", "E"]}}, format="json")
    assert body.json()["message"] == "D3: 'A' appears more than once; missing 'B'"
