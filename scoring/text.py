"""Sentences that scoring hands to people, in English and ready to be said in the reader's language.

Scoring imports no Django, so it cannot translate. A sentence it returns under a key (a flag's "reason", a defect's
"detail") is the English text a log, an export or the command line shows, and beside it, under ``<key>_i18n``, the
pattern and the facts it was made of; the site says the sentence in the request's language with
`virtuemap_site.i18n.translated`. Patterns are marked with `gettext_noop`, as Django's own, so the translation
catalogue's check finds them.
"""

from __future__ import annotations

from typing import Any


def gettext_noop(pattern: str) -> str:
    """Marks ``pattern`` for the translation catalogue and returns it unchanged (Django's gettext_noop, no Django)."""
    return pattern


def phrased(key: str, pattern: str, **facts: str | int) -> dict[str, Any]:
    """``{key: pattern % facts, key + "_i18n": {"pattern": pattern, "facts": facts}}``: the English sentence and
    what a translation needs, JSON-ready so it is stored with a result. Facts are numbers or preformatted figures
    (percentages, p-values), never words that would need translating themselves."""
    return {key: pattern % facts, f"{key}_i18n": {"pattern": pattern, "facts": facts}}
