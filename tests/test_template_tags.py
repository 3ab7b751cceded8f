"""The template tags every page may use without loading them."""

from __future__ import annotations

from django.template import engines
from django.utils import translation


def test_a_scroll_region_wraps_its_table_in_a_named_region_the_keyboard_reaches():
    page = engines["django"].from_string(
        "{% scroll_region %}<table><tr><td>{{ x }}</td></tr></table>{% endscroll_region %}"
    )

    html = page.render({"x": "<b>"})

    assert html == (
        '<div class="table-scroll" tabindex="0" role="region" aria-label="Table (scrolls sideways on a narrow '
        'screen)"><table><tr><td>&lt;b&gt;</td></tr></table></div>'
    )


def test_statuses_sources_and_languages_read_as_words_in_the_active_language():
    page = engines["django"].from_string(
        "{{ 'finished'|run_status }} / {{ 'import'|result_source }} / {{ 'zh-hans'|language_name }} / "
        "{{ 'xx'|language_name }} / {{ 'lost'|run_status }}"
    )

    assert page.render({}) == "Finished / Imported run records / 简体中文 / xx / lost"
    with translation.override("zh-hans"):
        assert page.render({}) == "已完成 / 导入的运行记录 / 简体中文 / xx / lost"


def test_a_stored_moment_is_written_as_the_active_language_writes_dates():
    page = engines["django"].from_string("{{ moment|iso_datetime|date|default:'—' }}")

    assert page.render({"moment": "2026-12-04T09:30:00+00:00"}) == "Dec. 4, 2026"
    assert page.render({"moment": None}) == "—"
    with translation.override("zh-hans"):
        assert page.render({"moment": "2026-12-04T09:30:00+00:00"}) == "2026年12月4日"
