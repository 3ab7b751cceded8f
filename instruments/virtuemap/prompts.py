"""The VirtueMap ranking instrument's presentation: seeded option permutations and the description of a valid answer
that backends turn into structured output or a grammar (the messages themselves are the protocol's: `protocols`).

Pure functions, no ORM. Display positions are "1"–"5" (the original suite's `display_position_to_canonical`), in an
order drawn from a generator seeded by (suite seed, run index, dilemma), so the same seed gives the same prompts on
any machine and after any resume.
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


def ranking_json_schema(*, constrain: bool, labels: Sequence[str] = DISPLAY_LABELS) -> dict[str, Any]:
    """Return the JSON schema of an answer {"ranking": [five labels]} in the shown ``labels``.

    With ``constrain`` the ranking is an enum of the 120 permutations, so a decoder that compiles the schema
    into a grammar (llama.cpp) can only produce a valid ranking; without it, five labels of any order.
    """
    if constrain:
        ranking: dict[str, Any] = {"enum": [list(ranking) for ranking in itertools.permutations(labels)]}
    else:
        ranking = {
            "type": "array",
            "items": {"type": "string", "enum": list(labels)},
            "minItems": len(labels),
            "maxItems": len(labels),
        }
    return {
        "type": "object",
        "properties": {"ranking": ranking},
        "required": ["ranking"],
        "additionalProperties": False,
    }


def ranking_grammar(labels: Sequence[str] = DISPLAY_LABELS) -> str:
    """Return a llama.cpp GBNF grammar whose language is exactly the 120 answers {"ranking":[…]} in ``labels``."""
    alternatives = " | ".join(
        json.dumps(json.dumps({"ranking": list(ranking)}, separators=(",", ":")))
        for ranking in itertools.permutations(labels)
    )
    return f"root ::= {alternatives}\n"


def ranking_constraint(labels: Sequence[str] = DISPLAY_LABELS) -> OutputConstraint:
    """The instrument's description of a valid answer in the shown ``labels``: the loose schema, the 120 rankings as
    a strict schema and as a grammar, for whichever a backend supports."""
    return OutputConstraint(
        name="ranking",
        schema=ranking_json_schema(constrain=False, labels=labels),
        strict_schema=ranking_json_schema(constrain=True, labels=labels),
        grammar=ranking_grammar(labels),
    )
