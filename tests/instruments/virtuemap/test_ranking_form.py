from __future__ import annotations

import re

import pytest
from django import forms
from django.template.loader import render_to_string

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
