"""The template tags every page may use without loading them."""

from __future__ import annotations

from django.template import engines


def test_a_scroll_region_wraps_its_table_in_a_named_region_the_keyboard_reaches():
    page = engines["django"].from_string(
        "{% scroll_region %}<table><tr><td>{{ x }}</td></tr></table>{% endscroll_region %}"
    )

    html = page.render({"x": "<b>"})

    assert html == (
        '<div class="table-scroll" tabindex="0" role="region" aria-label="Table (scrolls sideways on a narrow '
        'screen)"><table><tr><td>&lt;b&gt;</td></tr></table></div>'
    )
