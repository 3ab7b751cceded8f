"""Does the evidence behind an automatic key decision look manufactured?

A key is decided automatically from the counted responses to one candidate (N evaluations, Y confirmations). People
leave a varied trail: they take seconds to read an item, arrive spread over time and over networks, disagree in
their corrections and now and then fail an attention check. A script that forges evidence cheaply leaves a uniform
one. `evidence_concerns` measures the trail and names each way in which it looks manufactured; a decision with any
concern waits for a researcher (surveys/integrity.py). Each concern needs a clear majority or share, never a single
odd answer, so an honest study at the default thresholds is not held (tests/scoring/test_integrity.py,
tests/instruments/virtuemap/test_key_integrity.py).

The concerns, with their default limits (`IntegrityThresholds`):

- ``fast``: more than 20 % of the responses came sooner than 4 s after the item was served (by the server's clock),
  too soon to have read a dilemma, its five responses and a virtue;
- ``burst``: more than half of them (and at least 5) arrived within 120 s of each other;
- ``one_network``: more than 20 % (and at least 3) came from one network bucket (a keyed hash of the /24 or /48);
- ``identical_corrections``: 80 % or more of at least 5 corrections are the very same ordering;
- ``suspicious``: more than 20 % (and at least 3) came from respondents whose consent looked automated;
- ``failed_checks``: more than 30 % (and at least 3) of the candidate's respondents failed an attention check;
- ``upends_key``: a retention would replace the pair's current key with an ordering that reverses more than 5 of its
  10 pairs of responses.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class EvidenceItem:
    """One counted response: seconds from serving to answer (None if unknown), when it arrived (seconds on any
    clock), its respondent's network bucket (None if unknown), the ordering it endorsed, whether it confirmed, and
    whether its respondent's consent looked automated."""

    seconds_on_item: float | None
    answered_at: float
    network: int | None
    ordering: str
    confirmed: bool
    suspicious: bool = False


@dataclass(frozen=True)
class IntegrityThresholds:
    min_item_seconds: float = 4.0
    max_fast_share: float = 0.2
    burst_seconds: float = 120.0
    max_burst_share: float = 0.5
    min_burst_count: int = 5
    max_network_share: float = 0.2
    min_network_count: int = 3
    max_identical_share: float = 0.8
    min_identical_count: int = 5
    max_suspicious_share: float = 0.2
    min_suspicious_count: int = 3
    max_failed_share: float = 0.3
    min_failed_count: int = 3
    max_reversed_pairs: int = 5


@dataclass(frozen=True)
class Concern:
    """One way the evidence looks manufactured: a code, a sentence for the reviewer, the value measured and the
    limit it crossed."""

    code: str
    message: str
    value: float
    limit: float


def reversed_pairs(first: str, second: str) -> int:
    """How many pairs of items two orderings of the same items put in opposite order (the Kendall distance)."""
    rank = {item: position for position, item in enumerate(second)}
    return sum(1 for a, b in itertools.combinations(first, 2) if rank[a] > rank[b])


def largest_window(times: Sequence[float], seconds: float) -> int:
    """The most of `times` that fall within any span of `seconds` (inclusive)."""
    ordered = sorted(times)
    best, start = 0, 0
    for end, moment in enumerate(ordered):
        while moment - ordered[start] > seconds:
            start += 1
        best = max(best, end - start + 1)
    return best


def evidence_concerns(
    items: Sequence[EvidenceItem],
    *,
    failed_respondents: int = 0,
    current_key: str | None = None,
    new_key: str | None = None,
    thresholds: IntegrityThresholds | None = None,
) -> tuple[Concern, ...]:
    """Return every concern (module docstring) about the counted responses `items` of one candidate; () if none.

    ``failed_respondents``: respondents of this candidate excluded for a failed attention check (their responses are
    not among `items`). ``current_key``/``new_key``: for a retention, the pair's current key and the ordering that
    would replace it (``upends_key``); None otherwise.
    """
    limits = thresholds or IntegrityThresholds()
    concerns: list[Concern] = []
    n = len(items)
    timed = [item.seconds_on_item for item in items if item.seconds_on_item is not None]
    fast = sum(1 for seconds in timed if seconds < limits.min_item_seconds)
    if timed and fast / len(timed) > limits.max_fast_share:
        concerns.append(
            Concern(
                "fast",
                f"{fast} of {len(timed)} answers came sooner than {limits.min_item_seconds:g} s after the item was "
                "shown, too soon to have read it",
                fast / len(timed),
                limits.max_fast_share,
            )
        )
    if n:
        burst = largest_window([item.answered_at for item in items], limits.burst_seconds)
        if burst >= limits.min_burst_count and burst / n > limits.max_burst_share:
            concerns.append(
                Concern(
                    "burst",
                    f"{burst} of {n} answers arrived within {limits.burst_seconds:g} s",
                    burst / n,
                    limits.max_burst_share,
                )
            )
    networks = Counter(item.network for item in items if item.network is not None)
    if networks:
        bucket, count = networks.most_common(1)[0]
        share = count / sum(networks.values())
        if count >= limits.min_network_count and share > limits.max_network_share:
            concerns.append(
                Concern(
                    "one_network",
                    f"{count} of {sum(networks.values())} answers came from one network (bucket {bucket})",
                    share,
                    limits.max_network_share,
                )
            )
    corrections = Counter(item.ordering for item in items if not item.confirmed)
    if corrections:
        ordering, count = corrections.most_common(1)[0]
        total = sum(corrections.values())
        if total >= limits.min_identical_count and count / total >= limits.max_identical_share:
            concerns.append(
                Concern(
                    "identical_corrections",
                    f"{count} of {total} corrections are the same ordering {ordering}",
                    count / total,
                    limits.max_identical_share,
                )
            )
    suspicious = sum(1 for item in items if item.suspicious)
    if n and suspicious >= limits.min_suspicious_count and suspicious / n > limits.max_suspicious_share:
        concerns.append(
            Concern(
                "suspicious",
                f"{suspicious} of {n} answers came from respondents whose consent looked automated",
                suspicious / n,
                limits.max_suspicious_share,
            )
        )
    respondents = n + failed_respondents
    if failed_respondents >= limits.min_failed_count and failed_respondents / respondents > limits.max_failed_share:
        concerns.append(
            Concern(
                "failed_checks",
                f"{failed_respondents} of {respondents} respondents failed an attention check",
                failed_respondents / respondents,
                limits.max_failed_share,
            )
        )
    if current_key and new_key and sorted(current_key) == sorted(new_key):
        flipped = reversed_pairs(current_key, new_key)
        if flipped > limits.max_reversed_pairs:
            pairs = len(current_key) * (len(current_key) - 1) // 2
            concerns.append(
                Concern(
                    "upends_key",
                    f"the new key {new_key} reverses {flipped} of the {pairs} pairs of the current key {current_key}",
                    flipped,
                    limits.max_reversed_pairs,
                )
            )
    return tuple(concerns)
