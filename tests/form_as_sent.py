"""What a browser sends when a form is submitted, read from the page's HTML, for tests that drive pages through the
test client: a disabled control, an unchecked box and a button nobody pressed never reach the server, whatever the
page's template wrote into them."""

from __future__ import annotations

from html.parser import HTMLParser


class _FormReader(HTMLParser):
    """The successful controls of the forms of a page (HTML's "constructing the entry list"), one dict per form."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[dict[str, str]] = []
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self.forms.append({})
        elif not self.forms or "disabled" in attributes or not attributes.get("name"):
            return
        elif tag == "input":
            self._input(attributes)
        elif tag == "select":
            self._select = attributes["name"]
        elif tag == "option" and self._select and "selected" in attributes:
            self.forms[-1][self._select] = attributes.get("value") or ""
        elif tag == "textarea":
            self._textarea = attributes["name"]
            self.forms[-1][self._textarea] = ""

    def _input(self, attributes: dict[str, str | None]) -> None:
        kind = (attributes.get("type") or "text").lower()
        if kind in ("submit", "button", "image", "reset", "file"):
            return
        if kind in ("checkbox", "radio") and "checked" not in attributes:
            return
        self.forms[-1][attributes["name"]] = attributes.get("value") or ("on" if kind == "checkbox" else "")

    def handle_data(self, data: str) -> None:
        if self._textarea and self.forms:
            self.forms[-1][self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def form_as_sent(page: str | bytes, *, index: int = -1, **pressed: str) -> dict[str, str]:
    """The fields the ``index``-th form of ``page`` (default: the last) sends as it is drawn, with ``pressed`` added:
    what a person ticks or chooses and the button they press (e.g. ``agree="on", accept="1"``)."""
    reader = _FormReader()
    reader.feed(page.decode() if isinstance(page, bytes) else page)
    return {**reader.forms[index], **pressed}
