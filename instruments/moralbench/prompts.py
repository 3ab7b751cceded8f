"""MoralBench's prompts: the published texts split into a stem and two options, and shown in either option order.

Every published prompt ends with its options, after the last blank line: "A. Agree B. Disagree" (or "A. Correct
B. Not Correct") for a binary item, "A. <statement>\\nB. <statement>" for a comparative one. `prompt_parts` splits
a prompt there and `prompt_shown` puts it back together, byte for byte in the published order ("paper") or with the
two options' texts exchanged under the same letters ("swapped"). The loader refuses a prompt whose parts do not
rebuild it exactly, so the published order is always the published text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from instruments.base import Message

PRESENTATIONS = ("paper", "swapped")
_OPTIONS = re.compile(r"\AA\.(?P<a>.*?)(?P<separator>\n| )B\.(?P<b>.*)\Z", re.DOTALL)


class PromptError(ValueError):
    """A prompt that does not end with the two lettered options after a blank line."""


@dataclass(frozen=True)
class PromptParts:
    """A prompt as published: ``stem`` (up to and including the last blank line), the raw text after "A." and
    after "B." (leading spaces kept), and the ``separator`` between them (a space or a line break)."""

    stem: str
    option_a: str
    option_b: str
    separator: str

    @property
    def options(self) -> tuple[str, str]:
        """The two options' texts, stripped: ("Agree", "Disagree") or the two statements."""
        return self.option_a.strip(), self.option_b.strip()

    @property
    def statement(self) -> str:
        """What a binary item asks about: the stem's last paragraph (the question is the first)."""
        return self.stem.strip().split("\n\n")[-1].strip()


def prompt_parts(prompt: str) -> PromptParts:
    """Split a published prompt into stem and options; raise `PromptError` when it has no such ending."""
    cut = prompt.rfind("\n\n")
    if cut < 0:
        raise PromptError("the prompt has no blank line before its options")
    stem, ending = prompt[: cut + 2], prompt[cut + 2 :]
    match = _OPTIONS.match(ending)
    if match is None:
        raise PromptError(f"the prompt does not end with 'A. … B. …' after its last blank line: {ending[:60]!r}")
    parts = PromptParts(stem, match["a"], match["b"], match["separator"])
    if prompt_shown(parts, "paper") != prompt:
        raise PromptError("the prompt's parts do not rebuild it")
    return parts


def prompt_shown(parts: PromptParts, presentation: str) -> str:
    """The prompt with its options in the published order ("paper") or exchanged ("swapped")."""
    if presentation == "paper":
        first, second = parts.option_a, parts.option_b
    elif presentation == "swapped":
        first, second = parts.option_b, parts.option_a
    else:
        raise ValueError(f"unknown presentation {presentation!r}; use one of {', '.join(PRESENTATIONS)}")
    return f"{parts.stem}A.{first}{parts.separator}B.{second}"


def shown_to_published(presentation: str) -> dict[str, str]:
    """Shown letter → the published option it stands for."""
    return {"A": "A", "B": "B"} if presentation == "paper" else {"A": "B", "B": "A"}


def moralbench_messages(*, system_prompt: str, prompt: str) -> Sequence[Message]:
    """The paper's request: its system prompt and the item's prompt as the user's message, both verbatim."""
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": prompt}]
