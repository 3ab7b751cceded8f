from __future__ import annotations

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
