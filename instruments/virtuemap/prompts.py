"""Prompts of the VirtueMap ranking instrument: seeded option permutations, the item prompt, the follow-up, and the
description of a valid answer that backends turn into structured output or a grammar.

Pure functions, no ORM. Options are shown under display labels "1"–"5" (the original suite's
`display_position_to_canonical`), in an order drawn from a generator seeded by (suite seed, run index,
dilemma), so the same seed gives the same prompts on any machine and after any resume.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from llmruns.backends.base import OutputConstraint
from scoring.rankings import OPTIONS

DISPLAY_LABELS: tuple[str, ...] = ("1", "2", "3", "4", "5")
Message = dict[str, str]

# Every ordering of the five display labels: the only answers a constrained decoder may produce.
ALL_DISPLAY_RANKINGS: tuple[tuple[str, ...], ...] = tuple(itertools.permutations(DISPLAY_LABELS))


def item_rng(*, seed: int, run_index: int, dilemma_id: str) -> np.random.Generator:
    """Return the generator of one item: seeded by (seed, run index, the dilemma id's bytes).

    A SeedSequence over the three parts gives independent streams per item without any global state, and
    does not depend on the order in which items happen to be executed.
    """
    return np.random.default_rng([seed, run_index, *dilemma_id.encode()])


def option_permutation(rng: np.random.Generator) -> dict[str, str]:
    """Return display label → option letter, a uniformly random assignment of A–E to labels 1–5."""
    order = rng.permutation(len(OPTIONS))
    return {label: OPTIONS[int(index)] for label, index in zip(DISPLAY_LABELS, order, strict=True)}


def item_permutation(*, seed: int, run_index: int, dilemma_id: str) -> dict[str, str]:
    """Return the display label → option letter mapping of one run × dilemma (see `item_rng`)."""
    return option_permutation(item_rng(seed=seed, run_index=run_index, dilemma_id=dilemma_id))


def canonical_ranking(display_ranking: Sequence[str], display_to_option: Mapping[str, str]) -> tuple[str, ...]:
    """Map a ranking of display labels back to option letters A–E."""
    return tuple(display_to_option[label] for label in display_ranking)


def ranking_messages(
    *, template: str, scenario: str, options: Mapping[str, str], display_to_option: Mapping[str, str]
) -> list[Message]:
    """Return the chat messages of one item: the instrument's template with the scenario and the responses.

    The template (Appendix B of the paper) is used verbatim apart from its two placeholders; it contains
    literal JSON braces, so the placeholders are replaced rather than formatted. Responses are listed one a
    line as "<label>. <text>" in display order.
    """
    responses = "\n" + "\n".join(f"{label}. {options[option]}" for label, option in display_to_option.items())
    content = template.replace("{scenario}", scenario).replace("{responses}", responses)
    return [{"role": "user", "content": content}]


def corrective_message(problem: str, *, language: str = "en") -> Message:
    """Return the follow-up that asks again after an unusable answer, naming what was wrong, in the run's
    ``language`` ("zh-hans" for the Chinese edition, anything else English). ``problem`` is the parser's English
    detail, quoted as it is: it names labels and JSON, which read the same in both."""
    example = json.dumps({"ranking": list(DISPLAY_LABELS)}, separators=(",", ":"))
    if language == "zh-hans":
        labels = "、".join(DISPLAY_LABELS)
        content = (
            f"你的回答无法使用（{problem}）。请按标签（{labels}）对全部五个回应排序，每个标签出现且只出现一次，"
            f"不得并列，不要解释。只返回 JSON，格式必须与下面完全一致：{example}"
        )
    else:
        labels = ", ".join(DISPLAY_LABELS)
        content = (
            f"Your answer could not be used: {problem}. Rank all five responses by their labels ({labels}), "
            f"each label exactly once, no ties, no explanation. Return JSON only in this exact format: {example}"
        )
    return {"role": "user", "content": content}


def ranking_json_schema(*, constrain: bool) -> dict[str, Any]:
    """Return the JSON schema of an answer {"ranking": [five labels]}.

    With ``constrain`` the ranking is an enum of the 120 permutations, so a decoder that compiles the schema
    into a grammar (llama.cpp) can only produce a valid ranking; without it, five labels of any order.
    """
    if constrain:
        ranking: dict[str, Any] = {"enum": [list(ranking) for ranking in ALL_DISPLAY_RANKINGS]}
    else:
        ranking = {
            "type": "array",
            "items": {"type": "string", "enum": list(DISPLAY_LABELS)},
            "minItems": len(DISPLAY_LABELS),
            "maxItems": len(DISPLAY_LABELS),
        }
    return {
        "type": "object",
        "properties": {"ranking": ranking},
        "required": ["ranking"],
        "additionalProperties": False,
    }


def ranking_grammar() -> str:
    """Return a llama.cpp GBNF grammar whose language is exactly the 120 answers {"ranking":[…]}."""
    alternatives = " | ".join(
        json.dumps(json.dumps({"ranking": list(ranking)}, separators=(",", ":"))) for ranking in ALL_DISPLAY_RANKINGS
    )
    return f"root ::= {alternatives}\n"


def ranking_constraint() -> OutputConstraint:
    """The instrument's description of a valid answer: the loose schema, the 120 rankings as a strict schema and as
    a grammar, for whichever a backend supports."""
    return OutputConstraint(
        name="ranking",
        schema=ranking_json_schema(constrain=False),
        strict_schema=ranking_json_schema(constrain=True),
        grammar=ranking_grammar(),
    )
