"""Template tags every page may use without ``{% load %}`` (registered as TEMPLATES builtins)."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.template.base import NodeList, Parser, Token
from django.utils import translation
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html
from django.utils.translation import gettext_lazy

from virtuemap_site.i18n import translated

register = template.Library()

SCROLL_REGION_LABEL = gettext_lazy("Table (scrolls sideways on a narrow screen)")


class ScrollRegionNode(template.Node):
    def __init__(self, nodelist: NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context: template.Context) -> str:
        return format_html(
            '<div class="table-scroll" tabindex="0" role="region" aria-label="{}">{}</div>',
            SCROLL_REGION_LABEL,
            self.nodelist.render(context),
        )


@register.tag
def scroll_region(parser: Parser, token: Token) -> ScrollRegionNode:
    """``{% scroll_region %}<table>…</table>{% endscroll_region %}``: a wide table that scrolls sideways on a narrow
    screen inside a named region the keyboard can reach (a scrollable area nobody can focus cannot be scrolled
    without a mouse: axe's scrollable-region-focusable)."""
    nodelist = parser.parse(("endscroll_region",))
    parser.delete_first_token()
    return ScrollRegionNode(nodelist)


@register.filter(name="item_text")
def item_text_filter(row: object, field: str) -> str:
    """``{{ dilemma|item_text:"title" }}``: an instrument item's text in the request's language, English where its
    edition has none (`instruments.virtuemap.editions.item_text`, the one accessor of item texts)."""
    from instruments.virtuemap.editions import item_text

    return item_text(row, field)


@register.filter(name="translated")
def translated_filter(record: dict, key: str) -> str:
    """``{{ flag|translated:"reason" }}``: a sentence scoring returned, in the request's language
    (`virtuemap_site.i18n.translated`)."""
    return translated(record, key)


@register.filter
def run_status(code: str) -> str:
    """``{{ run.status|run_status }}``: a run's status in words, in the request's language (the code if unknown)."""
    from llmruns.models import Run

    return _choice_label(Run.Status, code)


@register.filter
def result_source(code: str) -> str:
    """``{{ row.source|result_source }}``: where a result came from, in words (the code if unknown)."""
    from llmruns.models import Result

    return _choice_label(Result.Source, code)


@register.filter
def language_name(code: str) -> str:
    """``{{ run.language|language_name }}``: a stored language code as the language calls itself ("简体中文" for
    zh-hans), or the code when Django does not know it."""
    try:
        return translation.get_language_info(code)["name_local"]
    except KeyError:
        return code


@register.filter
def iso_datetime(text: str | None) -> datetime | None:
    """``{{ run.finished_at|iso_datetime|date }}``: a moment stored as ISO 8601 text (a run's record, as the API
    gives it) as a datetime, so Django's ``date`` filter writes it the way the request's language writes dates."""
    return parse_datetime(text) if text else None


def _choice_label(choices, code: str) -> str:
    try:
        return str(choices(code).label)
    except ValueError:
        return code


@register.simple_tag
def ranking(form: object, legend: str, intro: str = "") -> str:
    """``{% ranking form legend intro %}``: the ranking component of a RankingForm (`RankingForm.component_html`,
    which renders components/ranking.html, once per process for a form not yet answered)."""
    return form.component_html(legend=legend, intro=intro)


@register.inclusion_tag("virtuemap/_edition_notice.html")
def edition_notice() -> dict[str, object]:
    """``{% edition_notice %}``: on a page showing VirtueMap's items in a translated edition, that the translation is
    the project's own and that its keys are not yet validated in that language; nothing in English."""
    from instruments.virtuemap.editions import ENGLISH, edition_keys_validated, edition_language, edition_version

    edition = edition_language()
    if edition == ENGLISH:
        return {"show": False}
    return {"show": True, "validated": edition_keys_validated(edition), "version": edition_version(edition)}
