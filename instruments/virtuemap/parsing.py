"""Reading a ranking out of a model's answer. Pure functions, no ORM.

Accepted, in this order of preference:
1. a JSON object with a "ranking" list, alone, in a code fence or anywhere in prose;
2. a JSON-like `ranking: [...]` whose brackets hold the labels (single quotes, trailing commas);
3. a bare JSON list of five labels in prose;
4. when the displayed responses are given, prose that quotes all five of them: their order of first mention
   is the ranking (small models tend to answer "1. <response text> 2. <response text> …").
Labels may be the display labels "1"–"5" (strings or numbers) or the letters A–E, read as the 1st–5th
displayed response (the model never sees the canonical letters, so a letter can only mean a position),
optionally written "Response 3" or "(B)". Anything that is not a permutation of the five labels is
invalid (OFF_SCALE: read, but not an answer the instrument allows): it is reported, never repaired.
Answers to the Chinese prompt are read the same way, with full-width punctuation ("［", "，", "：", "“") read as
its ASCII form and Chinese refusals ("我无法…", "抱歉") recognised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from instruments.base import AnswerStatus
from instruments.virtuemap.prompts import DISPLAY_LABELS

QUOTED_WORDS = 8
_LETTER_LABELS = {letter: label for letter, label in zip("ABCDE", DISPLAY_LABELS, strict=True)}
_ITEM_PATTERN = re.compile(r"^(?:(?:option|response|answer)\s*)?\(?\s*([1-5A-Ea-e])\s*\)?\.?$", re.IGNORECASE)
_RANKING_LIST_PATTERN = re.compile(r"ranking['\"]?\s*[:=]\s*\[([^\[\]]*)\]", re.IGNORECASE)
_BARE_LIST_PATTERN = re.compile(r"\[([^\[\]]*)\]")
# Full-width brackets, commas, colons and quotes, which a model answering in Chinese may put in its JSON.
_FULL_WIDTH = str.maketrans(
    {"［": "[", "］": "]", "｛": "{", "｝": "}", "，": ",", "、": ",", "：": ":", "“": '"', "”": '"'}
)
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
# No \b here: between two Chinese characters there is no word boundary.
_REFUSAL_PATTERN_ZH = re.compile(r"我(?:不能|无法|不会|拒绝)|抱歉|作为(?:一个)?(?:AI|人工智能)")
_REFUSAL_PATTERN = re.compile(
    r"\b(?:I\s*(?:can(?:not|'t|’t)|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable)|won(?:'t|’t)|"
    r"will\s+not|must\s+decline|decline)|I(?:'m|’m|\s+am)\s+sorry|as\s+an\s+AI)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParseResult:
    """status; display_ranking (labels "1"–"5" in rank order) only when valid; detail says what was wrong."""

    status: AnswerStatus
    display_ranking: tuple[str, ...] | None = None
    detail: str = ""

    @property
    def valid(self) -> bool:
        return self.status is AnswerStatus.VALID


def parse_ranking(
    text: str, *, finish_reason: str | None = None, options: Mapping[str, str] | None = None
) -> ParseResult:
    """Return the ranking in ``text`` (see module docstring), or why there is none.

    ``options`` maps display label → the response text shown under it; with it, prose quoting every response
    is read too.

    ``finish_reason`` is the provider's; "length" marks an answer cut off by the token limit, reported as
    TRUNCATED unless a complete ranking was already read. A text with no ranking is a REFUSAL when it
    declines, TRUNCATED when it opens a JSON object that never closes, and UNPARSEABLE otherwise.
    """
    if _CJK.search(text):
        # Only an answer written in Chinese: an English answer's curly quotes stay as they are.
        text = text.translate(_FULL_WIDTH)
    items = _ranking_items(text)
    if items is not None:
        return _check_permutation(items)
    quoted = _ranking_from_quoted_responses(text, options) if options else None
    if quoted is not None:
        return ParseResult(AnswerStatus.VALID, display_ranking=quoted, detail="read from the responses quoted in order")
    return _no_ranking(text, truncated=finish_reason == "length" or _opens_unclosed_json(text))


def _no_ranking(text: str, *, truncated: bool) -> ParseResult:
    """Why a reply holds no ranking: cut off, a refusal, empty, or none of these."""
    if truncated:
        return ParseResult(AnswerStatus.TRUNCATED, detail="the answer was cut off before the JSON was complete")
    if _REFUSAL_PATTERN.search(text) or _REFUSAL_PATTERN_ZH.search(text):
        return ParseResult(AnswerStatus.REFUSAL, detail="the answer declined to rank the responses")
    if not text.strip():
        return ParseResult(AnswerStatus.UNPARSEABLE, detail="the answer was empty")
    return ParseResult(AnswerStatus.UNPARSEABLE, detail='no JSON object of the form {"ranking": [...]} was found')


def _ranking_items(text: str) -> list[object] | None:
    """Return the raw items of the first ranking found in ``text``, or None."""
    decoder = json.JSONDecoder()
    for start in (match.start() for match in re.finditer(r"[{\[]", text)):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            for key, ranking in value.items():
                if isinstance(key, str) and key.strip().lower() == "ranking" and isinstance(ranking, list):
                    return ranking
    match = _RANKING_LIST_PATTERN.search(text)
    if match:
        return _split_list(match.group(1))
    for match in _BARE_LIST_PATTERN.finditer(text):
        items = _split_list(match.group(1))
        if len(items) == len(DISPLAY_LABELS) and all(_label(item) is not None for item in items):
            return items
    return None


def _split_list(inner: str) -> list[object]:
    return [part.strip().strip("'\"`").strip() for part in inner.split(",") if part.strip()]


def _label(item: object) -> str | None:
    """Return the display label an item stands for, or None."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        text = str(item)
    elif isinstance(item, str):
        text = item.strip()
    else:
        return None
    match = _ITEM_PATTERN.match(text)
    if not match:
        return None
    symbol = match.group(1).upper()
    return _LETTER_LABELS.get(symbol, symbol)


def _check_permutation(items: list[object]) -> ParseResult:
    labels = [_label(item) for item in items]
    unknown = [item for item, label in zip(items, labels, strict=True) if label is None]
    if unknown:
        shown = ", ".join(repr(item) for item in unknown)
        return ParseResult(AnswerStatus.OFF_SCALE, detail=f"unknown labels {shown}; labels are 1 to 5")
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    missing = [label for label in DISPLAY_LABELS if label not in labels]
    if repeated or len(labels) != len(DISPLAY_LABELS):
        problems = [f"it has {len(labels)} items, not 5"] if len(labels) != len(DISPLAY_LABELS) else []
        if repeated:
            problems.append(f"{', '.join(repeated)} repeated")
        if missing:
            problems.append(f"{', '.join(missing)} missing")
        return ParseResult(AnswerStatus.OFF_SCALE, detail="the ranking is not a permutation: " + "; ".join(problems))
    return ParseResult(AnswerStatus.VALID, display_ranking=tuple(labels))


def _normalized(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _ranking_from_quoted_responses(text: str, options: Mapping[str, str]) -> tuple[str, ...] | None:
    """Return the labels in the order their response texts first appear in ``text``, if all five do.

    A response counts as quoted when its first eight words appear (case, punctuation and spacing ignored):
    enough to tell the five apart, short enough to survive a model that shortens the tail.
    """
    answer = _normalized(text)
    positions = {}
    for label, response in options.items():
        words = _normalized(response).split()[:QUOTED_WORDS]
        position = answer.find(" ".join(words)) if words else -1
        if position < 0:
            return None
        positions[label] = position
    if len(set(positions.values())) != len(positions) or sorted(positions) != sorted(DISPLAY_LABELS):
        return None
    return tuple(sorted(positions, key=positions.__getitem__))


def _opens_unclosed_json(text: str) -> bool:
    """True when the answer starts a JSON object (in or out of a fence) that is never closed."""
    body = re.sub(r"^\s*```(?:json)?", "", text.strip(), flags=re.IGNORECASE).strip()
    return body.startswith("{") and body.count("{") > body.count("}")


_ORIGINAL_OBJECT = re.compile(r"\{.*?\}", re.DOTALL)
_ORIGINAL_TOKEN = re.compile(r"\b([1-5A-E])\b")


def parse_ranking_original(text: str, *, finish_reason: str | None = None) -> ParseResult:
    """Read a reply the way the original VirtueMap run-suite did (its protocol file's ``reply_parsing``).

    1. The reply as JSON, else the first ``{...}`` embedded in it, with a "ranking" list: its items integers or
       strings, a letter A–E read as the label of that position (A = 1 … E = 5).
    2. Failing JSON, the tokens 1–5 or A–E found in the text, in order.
    Valid only when the labels are a permutation of the five. The status of an unusable reply (truncated, refusal,
    unparseable, off scale) is this platform's classification; the suite only knew valid or not.
    """
    items = _original_json_items(text)
    if items is None:
        tokens = _ORIGINAL_TOKEN.findall(text)
        if tokens:
            items = list(tokens)
    if items is not None:
        unknown = [item for item in items if _original_label(item) is None]
        if unknown:
            shown = ", ".join(repr(item) for item in unknown)
            result = ParseResult(AnswerStatus.OFF_SCALE, detail=f"unknown labels {shown}; labels are 1 to 5")
        else:
            result = _check_permutation([_original_label(item) for item in items])
        if result.valid or finish_reason != "length":
            return result
    return _no_ranking(text, truncated=finish_reason == "length")


def _original_json_items(text: str) -> list[object] | None:
    candidates = [text.strip()]
    embedded = _ORIGINAL_OBJECT.search(text)
    if embedded:
        candidates.append(embedded.group(0))
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("ranking"), list):
            return value["ranking"]
    return None


def _original_label(item: object) -> str | None:
    """An item as the suite read it: an integer 1–5 or a string "1"–"5" or "A"–"E" (a letter names a position)."""
    if isinstance(item, bool) or not isinstance(item, int | str):
        return None
    text = str(item).strip()
    if text in DISPLAY_LABELS:
        return text
    return _LETTER_LABELS.get(text)
