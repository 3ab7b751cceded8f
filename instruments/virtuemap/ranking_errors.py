"""What is wrong with a ranking, worded in the reader's language (a page's respondent, an API consumer).

`scoring` words its `RankingError` in English and imports nothing from Django, so the pages and the API word the
same problems here, through the translation catalogue. The checks run in `scoring.validate_ranking`'s order and the
English wording is its wording, so an English reader sees the same message as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import reduce

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from scoring.rankings import OPTIONS

_OPTION_LIST = ", ".join(OPTIONS)


def ranking_problem_message(value: object) -> str:
    """Why ``value`` is not a permutation of A–E, as `scoring.validate_ranking` says it, in the active language.

    Return "" for a valid ranking.
    """
    if not isinstance(value, (list, tuple)):
        return _("a ranking must be a list of option letters, got %(type)s %(value)s") % {
            "type": type(value).__name__,
            "value": repr(value),
        }
    if len(value) != len(OPTIONS):
        return ngettext(
            "ranking has %(count)d item; a ranking has exactly %(options)d",
            "ranking has %(count)d items; a ranking has exactly %(options)d",
            len(value),
        ) % {"count": len(value), "options": len(OPTIONS)}
    non_strings = [item for item in value if not isinstance(item, str)]
    if non_strings:
        return _("ranking items must be option letters (strings), got %(items)s") % {
            "items": ", ".join(f"{type(item).__name__} {item!r}" for item in non_strings)
        }
    unknown = [item for item in value if item not in OPTIONS]
    if unknown:
        return ngettext(
            "unknown option %(letters)s; options are %(options)s",
            "unknown options %(letters)s; options are %(options)s",
            len(unknown),
        ) % {"letters": ", ".join(repr(item) for item in unknown), "options": _OPTION_LIST}
    repeated = [item for index, item in enumerate(value) if item in value[:index]]
    repeated = list(dict.fromkeys(repeated))
    if repeated:
        missing = [option for option in OPTIONS if option not in value]
        return ngettext(
            "%(repeated)s appears more than once; missing %(missing)s",
            "%(repeated)s appear more than once; missing %(missing)s",
            len(repeated),
        ) % {
            "repeated": ", ".join(repr(item) for item in repeated),
            "missing": ", ".join(repr(option) for option in missing),
        }
    return ""


def shared_positions_message(positions: Mapping[str, int]) -> str:
    """The responses that share a position (``positions``: letter → 1–5), as `ranking_from_positions` says it.

    Return "" when every response has its own position.
    """
    by_position: dict[int, list[str]] = {}
    for letter in OPTIONS:
        by_position.setdefault(positions[letter], []).append(letter)
    clashes = [
        _("%(responses)s are both at position %(position)s") % {"responses": _letters(letters), "position": position}
        for position, letters in sorted(by_position.items())
        if len(letters) > 1
    ]
    if not clashes:
        return ""
    return _("each position can hold one response: %(clashes)s") % {"clashes": "; ".join(clashes)}


def _letters(letters: Sequence[str]) -> str:
    # "A and C" in English; each language joins the letters its own way ("A、C").
    return reduce(
        lambda left, right: pgettext("two responses", "%(left)s and %(right)s") % {"left": left, "right": right},
        letters,
    )
