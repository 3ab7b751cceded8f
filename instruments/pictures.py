"""Every picture of the cross-instrument pages as a file: a standalone SVG (the page's own drawing, with the
stylesheets' rules for it inside) and a PNG rasterised from it on the server by CairoSVG (offline; it needs the
system's libcairo2).

A page's pictures are the SVG elements of its instruments' sections, numbered in order; nothing is drawn twice.
"""

from __future__ import annotations

import re
from functools import cache

from django.contrib.staticfiles import finders
from django.utils.translation import gettext as _

# The stylesheets whose rules the charts use; CSS variables are replaced by their values (CairoSVG has none).
STYLESHEETS = ("css/site.css", "css/profiles.css", "css/moralbench.css", "css/transitivity.css")
PNG_SCALE = 2.0  # twice the view box: sharp on a high-density screen and in print
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
_SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", re.S)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.S)
_VARIABLE = re.compile(r"var\((--[\w-]+)\)")
_MEDIA = re.compile(r"@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}")
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
# A selector of a drawing's own parts: one class of the charts, then only further parts of the drawing.
_CHART_SELECTOR = re.compile(r"^\.(radar|foundation|counts|heatmap)-(?!svg\b)[\w-]+( [\w.-]+)?$")


def svg_elements(html: str) -> list[str]:
    """The SVG elements of a piece of HTML, in order."""
    return _SVG.findall(html)


def svg_titles(html: str) -> list[str]:
    """Each SVG element's title (its text alternative), for the download links."""
    titles = []
    for svg in svg_elements(html):
        found = _TITLE.search(svg)
        titles.append(found.group(1).strip() if found else _("picture"))
    return titles


@cache
def chart_stylesheet() -> str:
    """The stylesheets' rules for the charts' own classes (the page's layout rules would size or hide the drawing
    in a file of its own), every var(--name) replaced by the value :root gives it."""
    text = "\n".join(_read(name) for name in STYLESHEETS)
    variables = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", text))
    text = _MEDIA.sub("", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
    rules = []
    for selectors, declarations in _RULE.findall(text):
        chart_selectors = [one.strip() for one in selectors.split(",") if _CHART_SELECTOR.match(one.strip())]
        if chart_selectors:
            rules.append(f"{', '.join(chart_selectors)} {{{declarations}}}")
    return _VARIABLE.sub(lambda match: variables.get(match.group(1), "currentColor").strip(), "\n".join(rules))


def _read(name: str) -> str:
    path = finders.find(name)
    if not path:
        raise LookupError(f"static file {name} not found")
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def standalone_svg(svg: str) -> str:
    """An SVG element of a page as a file of its own: the namespace, a size from its view box, the rules styling
    it, and the site's font."""
    opening = svg[: svg.index(">") + 1]
    attributes = opening[len("<svg") : -1]
    if "xmlns=" not in attributes:
        attributes += f' xmlns="{SVG_NAMESPACE}"'
    box = re.search(r'viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"', attributes)
    if box and "width=" not in attributes:
        attributes += f' width="{box.group(3)}" height="{box.group(4)}"'
    style = f"<style>svg {{ font-family: DejaVu Sans, sans-serif; background: #fff; }}\n{chart_stylesheet()}</style>"
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<svg{attributes}>{style}{svg[len(opening) :]}'


def png_from_svg(svg: str) -> bytes:
    """The standalone SVG rasterised at `PNG_SCALE`, on a white background."""
    import cairosvg

    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=PNG_SCALE, background_color="white")
