"""Template tags every page may use without ``{% load %}`` (registered as TEMPLATES builtins): the site's own;
the run engine's and each instrument's are in their apps' ``templatetags``, registered beside these."""

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


@register.filter(name="translated")
def translated_filter(record: dict, key: str) -> str:
    """``{{ flag|translated:"reason" }}``: a sentence scoring returned, in the request's language
    (`virtuemap_site.i18n.translated`)."""
    return translated(record, key)


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


@register.simple_tag
def people_minimum_notice() -> str:
    """``{% people_minimum_notice %}``: in the request's language, that people's results appear on public pages once
    PUBLIC_AGGREGATE_MIN_RESPONDENTS people have taken part (`surveys.selectors.enough_people`)."""
    from django.conf import settings
    from django.utils.translation import ngettext

    minimum = settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS
    text = ngettext(
        "People's results appear here once %(n)d person has taken part.",
        "People's results appear here once %(n)d people have taken part.",
        minimum,
    ) % {"n": minimum}
    return format_html('<p class="muted" data-people-minimum>{}</p>', text)
