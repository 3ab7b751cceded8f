"""VirtueMap's published LLM protocols, by name: how a dilemma is put to a model, how its reply is read, and how an
unusable reply is asked again. Pure functions over the protocol files, no ORM.

- ``original`` (the default): the original run-suite's messages (a system message; the responses one a line under
  labels 1–5; the JSON example in numbers), its reply parsing (`parsing.parse_ranking_original`), an unusable reply
  re-asked by sending the first request again with the suite's re-ask message appended (the bad reply is not sent
  back), up to 8 answers per dilemma, temperature 0.7. This is how the paper's published profiles were made.
- ``paper``: the template printed in the paper's Appendix B (no system message; the responses on one line under
  labels A–E; the JSON example in letters). The paper prints no re-ask: the original's is used, its example in
  letters, and so are its parsing and its number of answers.

`fixtures/run_protocols.json` holds both verbatim; `fixtures/run_protocols.zh-hans.json` the project's Chinese
translation for runs of the Chinese edition. In both protocols the responses are shown in a seeded random order;
display position i (label "i" internally, whatever label the protocol shows) maps to an option letter A–E.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ORIGINAL = "original"
PAPER = "paper"
PROTOCOLS = (ORIGINAL, PAPER)
DEFAULT = ORIGINAL
POSITIONS = ("1", "2", "3", "4", "5")
ORDINALS = ("first", "second", "third", "fourth", "fifth")
PAPER_LABELS = ("A", "B", "C", "D", "E")
_ORIGINAL_EXAMPLE = '{"ranking":["1","2","3","4","5"]}'
_PAPER_EXAMPLE = '{"ranking":["A","B","C","D","E"]}'


@dataclass(frozen=True)
class Protocol:
    """One protocol in one language: its messages (with placeholders), the labels it shows the five positions under,
    its re-ask message, the answers it asks for per dilemma at most, and its temperature."""

    name: str
    language: str
    messages: tuple[Mapping[str, str], ...]
    labels: tuple[str, ...]
    re_ask: str
    max_answers: int
    temperature: float


@cache
def _file(language: str) -> dict:
    name = "run_protocols.zh-hans.json" if language == "zh-hans" else "run_protocols.json"
    with (FIXTURES / name).open(encoding="utf-8") as handle:
        return json.load(handle)["protocols"]


@cache
def protocol(name: str, language: str = "en") -> Protocol:
    """The protocol ``name`` for the edition ``language`` ("en" or "zh-hans"); ValueError for an unknown name."""
    if name not in PROTOCOLS:
        raise ValueError(f"VirtueMap has no protocol {name!r}; it has {', '.join(PROTOCOLS)}")
    original = _file("en")[ORIGINAL]
    texts = _file("zh-hans" if language == "zh-hans" else "en")
    if language == "zh-hans":
        re_ask = texts[name]["re_ask"]
    else:
        # The paper prints no re-ask: the original's, its example in letters (run_protocols.json's note).
        re_ask = _reask_text(original["re_ask"])
        re_ask = re_ask if name == ORIGINAL else re_ask.replace(_ORIGINAL_EXAMPLE, _PAPER_EXAMPLE)
    return Protocol(
        name=name,
        language=language,
        messages=tuple(dict(message) for message in texts[name]["messages"]),
        labels=POSITIONS if name == ORIGINAL else PAPER_LABELS,
        re_ask=re_ask,
        max_answers=int(original["max_answers_per_dilemma"]),
        temperature=float(original["temperature"]),
    )


def _reask_text(description: str) -> str:
    """The re-ask message quoted at the end of the protocol file's description (after "appended ...: ")."""
    return description.split("): ", 1)[1]


def protocol_messages(
    chosen: Protocol, *, scenario: str, options: Mapping[str, str], display_to_option: Mapping[str, str]
) -> list[dict[str, str]]:
    """The chat messages that put one dilemma to a model under ``chosen``: the protocol's messages verbatim with the
    scenario and the responses (``options``: letter → text) in display order (``display_to_option``: position
    "1"–"5" → letter) put in place of the placeholders (replaced, not formatted: the texts hold JSON braces)."""
    shown = [options[display_to_option[position]] for position in POSITIONS]
    messages = []
    for message in chosen.messages:
        content = message["content"].replace("{scenario}", scenario)
        for index, text in enumerate(shown):
            content = content.replace(f"{{response shown {ORDINALS[index]}}}", text)
            content = content.replace(f"{{response {PAPER_LABELS[index]}}}", text)
        messages.append({"role": message["role"], "content": content})
    return messages


def reask_message(chosen: Protocol) -> dict[str, str]:
    """The user message appended to the first request after an unusable reply."""
    return {"role": "user", "content": chosen.re_ask}
