"""VirtueMap's template tags, registered as TEMPLATES builtins so that its pages use them without ``{% load %}``."""

from __future__ import annotations

from django import template

from instruments.virtuemap.editions import ENGLISH, edition_language, edition_version, item_text
from instruments.virtuemap.keys import shown_edition_keys_validated

register = template.Library()


@register.filter(name="item_text")
def item_text_filter(row: object, field: str) -> str:
    """``{{ dilemma|item_text:"title" }}``: an instrument item's text in the request's language, English where its
    edition has none (`instruments.virtuemap.editions.item_text`, the one accessor of item texts)."""
    return item_text(row, field)


@register.simple_tag
def ranking(form: object, legend: str, intro: str = "") -> str:
    """``{% ranking form legend intro %}``: the ranking component of a RankingForm (`RankingForm.component_html`,
    which renders components/ranking.html, once per process for a form not yet answered)."""
    return form.component_html(legend=legend, intro=intro)


@register.inclusion_tag("virtuemap/_edition_notice.html")
def edition_notice() -> dict[str, object]:
    """``{% edition_notice %}``: on a page showing VirtueMap's items in a translated edition, that the translation is
    the project's own and that its keys are not yet validated in that language; nothing in English."""
    edition = edition_language()
    if edition == ENGLISH:
        return {"show": False}
    return {"show": True, "validated": shown_edition_keys_validated(edition), "version": edition_version(edition)}
