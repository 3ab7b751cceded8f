"""Template tags every page may use without ``{% load %}`` (registered as TEMPLATES builtins)."""

from __future__ import annotations

from django import template
from django.template.base import NodeList, Parser, Token
from django.utils.html import format_html

register = template.Library()

SCROLL_REGION_LABEL = "Table (scrolls sideways on a narrow screen)"


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
