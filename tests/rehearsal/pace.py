"""How fast the rehearsal's people read and answer: REHEARSAL_PACE=fast (the default, CI) or human.

Whatever the pace, the server's consent minimum (STUDY_CONSENT_MIN_SECONDS) sits below a person's reading time and
above a script's, so the timing check the consent page makes is the real one at both paces: "human" keeps the
deployment's default of 5 s, "fast" lowers it to 1 s and reads for 1.3 to 2 s.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Pace:
    name: str
    consent_min_seconds: float
    reading_seconds: tuple[float, float]
    thinking_seconds: tuple[float, float]

    def read(self, page, rng: random.Random) -> None:
        """Stay on the information sheet as long as a person reads it."""
        page.wait_for_timeout(rng.uniform(*self.reading_seconds) * 1000)

    def think(self, page, rng: random.Random) -> None:
        """Stay on an item as long as a person considers it."""
        page.wait_for_timeout(rng.uniform(*self.thinking_seconds) * 1000)


PACES = {
    "fast": Pace("fast", consent_min_seconds=1.0, reading_seconds=(1.3, 2.0), thinking_seconds=(0.05, 0.25)),
    "human": Pace("human", consent_min_seconds=5.0, reading_seconds=(12.0, 40.0), thinking_seconds=(3.0, 12.0)),
}


def pace_from_environment() -> Pace:
    name = os.environ.get("REHEARSAL_PACE", "fast")
    if name not in PACES:
        raise ValueError(f"REHEARSAL_PACE must be one of {', '.join(PACES)}, got {name!r}")
    return PACES[name]


def size_from_environment() -> int:
    """REHEARSAL_SIZE: browser respondents per study and language who take the study whole (default 1)."""
    size = int(os.environ.get("REHEARSAL_SIZE", "1"))
    if not 1 <= size <= 200:
        raise ValueError(f"REHEARSAL_SIZE must be from 1 to 200, got {size}")
    return size
