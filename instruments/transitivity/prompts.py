"""The paper's prompt for one pairwise choice: pure functions, no Django."""

from __future__ import annotations


def choice_messages(*, template: str, vignette_1: str, vignette_2: str) -> list[dict[str, str]]:
    """Return the chat messages of one prompt: the template with Situation 1 and 2 filled in, as one user turn.

    The paper sends no system prompt, so neither do we: a system prompt would be part of what is measured.
    """
    return [{"role": "user", "content": template.format(vignette_1=vignette_1, vignette_2=vignette_2)}]
