"""What the transitivity test reads from a model beyond the label probabilities of `llmruns.labels`: pure functions.

The prompt asks which of Situation 1 and Situation 2 is morally worse and to answer with the number only, so the
labels are "1" and "2". A sampled answer names a label when it starts with it (after whitespace and an optional
"Situation"), and the digit does not start a longer number ("12" is not "1").
"""

from __future__ import annotations

import re

_ANSWER_LABEL = re.compile(r"^\s*(?:situation\s*)?([12])(?!\d)", re.IGNORECASE)


def label_of_answer(text: str) -> str | None:
    """Return the label a sampled answer gives ("1", "2"), or None when it names neither."""
    match = _ANSWER_LABEL.match(text)
    return match.group(1) if match else None


def x_worse_probability(situation_1_worse: float | None, *, reversed_order: bool) -> float | None:
    """P(x worse than y) for the canonical pair from P(Situation 1 worse) and the presentation order."""
    if situation_1_worse is None:
        return None
    return 1.0 - situation_1_worse if reversed_order else situation_1_worse
