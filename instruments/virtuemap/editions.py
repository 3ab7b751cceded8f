"""The editions of the VirtueMap instrument: the paper's English text and the project's Simplified Chinese translation.

The English text is in the content tables' own fields; another edition's text is in each row's ``translations``
(language → field → text), loaded by `load_instrument` from ``fixtures/instrument.<language>.json``. Every page, API
and prompt that shows an item text reads it through `item_text`, so a missing translation falls back to English the
same way everywhere. The Chinese edition is the project's own (not published by the paper's authors) and its keys
are not yet validated in Chinese: `keys.shown_edition_keys_validated` says when its own validation study has
retained them.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language

ENGLISH = "en"
CHINESE = "zh-hans"
EDITIONS: tuple[str, ...] = (ENGLISH, CHINESE)


def canonical_language(language: str) -> str:
    """A language code as the platform stores it: any Chinese code ("zh", "zh-Hans", "zh_Hans", "zh-cn") becomes
    "zh-hans", anything else is lower-cased with its region dropped ("en-US" → "en"). Whether the instrument has an
    edition in it is for the caller to check against `EDITIONS`."""
    code = language.strip().lower().replace("_", "-")
    # Simplified Chinese is the only Chinese edition, so every Chinese code reads it rather than the English.
    return CHINESE if code.split("-")[0] == "zh" else code.split("-")[0]


def edition_language(language: str | None = None) -> str:
    """The edition to show for ``language`` (default: the active language, i.e. the request's): its canonical code
    when the instrument has that edition, else English."""
    code = canonical_language(language or get_language() or ENGLISH)
    return code if code in EDITIONS else ENGLISH


def item_text(row: Any, field: str, language: str | None = None) -> str:
    """The text of ``row``'s ``field`` (a Virtue's name, a Dilemma's title, an Option's text, the instrument's
    prompt…) in ``language`` (default: the active language); the English text where the edition has none."""
    edition = edition_language(language)
    if edition != ENGLISH:
        translated = ((getattr(row, "translations", None) or {}).get(edition) or {}).get(field)
        if translated:
            return translated
    return getattr(row, field, "")


def edition_version(language: str | None = None) -> str:
    """The version of the edition shown for ``language``, as results record it: English, the instrument's version
    ("2"); another edition, the instrument's version with the edition's own ("2 (zh-hans 2)"), which changes whenever
    the edition's item text does. "" before the instrument is loaded."""
    from instruments.virtuemap.models import VirtueMapInstrument

    content = VirtueMapInstrument.objects.order_by("slug").first()
    if content is None:
        return ""
    edition = edition_language(language)
    if edition == ENGLISH:
        return str(content.version)
    own = ((content.translations or {}).get(edition) or {}).get("edition_version") or "1"
    return f"{content.version} ({edition} {own})"
