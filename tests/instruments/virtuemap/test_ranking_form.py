from __future__ import annotations

import re

import pytest
from django import forms
from django.template.loader import render_to_string
from django.test.signals import template_rendered
from django.utils import translation
from django.utils.html import conditional_escape

from instruments.virtuemap.forms import RankingForm


def positions(**by_letter: int) -> dict[str, str]:
    return {f"position_{letter}": str(position) for letter, position in by_letter.items()}


def test_the_form_returns_the_ranking_the_positions_describe():
    form = RankingForm(positions(A=2, B=1, C=3, D=5, E=4))
    assert form.is_valid()
    assert form.cleaned_data["ranking"] == ("B", "A", "C", "E", "D")


def test_the_form_starts_from_the_initial_ranking():
    form = RankingForm(initial_ranking=["C", "B", "D", "A", "E"])
    assert [form.position_field(letter).initial for letter in "CBDAE"] == [1, 2, 3, 4, 5]


def test_two_responses_at_one_position_get_a_clear_error():
    form = RankingForm(positions(A=1, B=1, C=3, D=4, E=5))
    assert not form.is_valid()
    assert "A and B are both at position 1" in form.non_field_errors()[0]


def test_a_missing_position_is_a_field_error():
    form = RankingForm(positions(A=1, B=2, C=3, D=4))
    assert not form.is_valid()
    assert "position_E" in form.errors


def select_markup(html: str) -> str:
    """The select as a browser sees it: the whitespace between tags dropped, attributes in a fixed order."""
    return " ".join(sorted(re.findall(r'[\w-]+="[^"]*"|<option[^>]*>\d</option>', html)))


@pytest.mark.parametrize(
    "data",
    [None, positions(A=2, B=2, C=3, D=5, E=4), positions(A=1, B=2, C=3, D=4)],
    ids=["unanswered", "two at one position", "one missing"],
)
def test_the_position_selects_are_django_s_select_written_directly(data):
    form = RankingForm(data, initial_ranking=["C", "B", "D", "A", "E"])
    if data is not None:
        form.is_valid()
    for letter in "ABCDE":
        field = form.position_field(letter)
        django_select = field.as_widget(widget=forms.Select(choices=field.field.choices))
        assert select_markup(str(field)) == select_markup(django_select)


def test_a_position_in_error_is_described_by_its_message_on_the_page():
    form = RankingForm(positions(A=1, B=2, C=3, D=4, E=9), prefix="item")
    assert not form.is_valid()
    html = render_to_string("components/ranking.html", {"form": form, "legend": "Order"})
    select = re.search(r'<select name="item-position_E"[^>]*>', html).group(0)
    described_by = re.search(r'aria-describedby="([^"]+)"', select).group(1)
    assert 'aria-invalid="true"' in select
    assert re.search(rf'<span class="field-error" id="{described_by}">[^<]+</span>', html)


TEXTS = {"A": "Tell the truth", "B": "Say nothing", "C": "Ask a friend", "D": "Wait & see", "E": "Leave"}


@pytest.fixture
def rendered_templates():
    """The names of the templates rendered while the test runs."""
    names: list[str] = []

    def record(sender, template, **kwargs):
        names.append(template.name)

    template_rendered.connect(record)
    yield names
    template_rendered.disconnect(record)


def test_an_unanswered_ranking_is_rendered_once_and_shows_what_its_template_shows(rendered_templates):
    form = RankingForm(initial_ranking=list("CBDAE"), option_texts=TEXTS, prefix="item")
    first = form.component_html(legend="Proposed order", intro="Is this right?")
    again = RankingForm(initial_ranking=list("CBDAE"), option_texts=TEXTS, prefix="item").component_html(
        legend="Proposed order", intro="Is this right?"
    )
    assert rendered_templates.count("components/ranking.html") == 1
    context = {"form": form, "legend": "Proposed order", "intro": "Is this right?"}
    assert first == again == render_to_string("components/ranking.html", context)
    assert "Wait &amp; see" in first and 'data-initial-order="CBDAE"' in first


def test_where_nothing_is_kept_the_template_is_rendered_every_time(settings, rendered_templates):
    # DEBUG's page-fragment cache (`make run`: ranking.html may be edited under the running server).
    settings.CACHES = {**settings.CACHES, "fragments": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    for _ in range(2):
        RankingForm(initial_ranking=list("EDCBA"), option_texts=TEXTS).component_html(legend="Debug")
    assert rendered_templates.count("components/ranking.html") == 2


def test_what_decides_an_unanswered_ranking_decides_its_html():
    def html(order="CBDAE", texts=TEXTS, legend="Order", language="en"):
        with translation.override(language):
            form = RankingForm(initial_ranking=list(order), option_texts=texts, prefix="item")
            return form.component_html(legend=legend)

    base = html()
    assert html("ABCDE") != base and 'data-initial-order="ABCDE"' in html("ABCDE")
    assert "Stay" in html(texts={**TEXTS, "E": "Stay"})
    assert ">Another order</legend>" in html(legend="Another order")
    assert html(language="zh-hans") != base
    # A legend the template has already escaped is shown as it is, never escaped twice.
    assert ">Fish &amp; chips</legend>" in html(legend=conditional_escape("Fish & chips"))
    assert ">Fish &amp; chips</legend>" in html(legend="Fish & chips")


def test_a_submitted_ranking_is_rendered_with_its_positions_and_errors():
    sent = {f"item-{name}": value for name, value in positions(A=1, B=1, C=3, D=4, E=5).items()}
    form = RankingForm(sent, option_texts=TEXTS, prefix="item")
    assert not form.is_valid()
    html = form.component_html(legend="Order")
    assert "both at position 1" in html
    assert re.search(r'<select name="item-position_B"[^>]*>.*?<option value="1" selected>', html, re.S)
