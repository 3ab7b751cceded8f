"""The per-item protocol of the VirtueMap run-suite, without the database.

Ask, parse, and while the answer is unusable ask again with a corrective follow-up, up to ``max_attempts``
answers. Every request is recorded verbatim. A provider error that survived the backend's own retries ends
the item unfinished (it consumes no attempt), so a resume asks again instead of storing a false result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from llmruns.backends.base import Backend, BackendError, Completion
from llmruns.parsing import ParseStatus, parse_ranking
from llmruns.prompts import Message, corrective_message, ranking_json_schema


@dataclass(frozen=True)
class ItemOutcome:
    """What one item produced.

    valid / display_ranking: the accepted answer, if any. attempts: one dict per request (see
    `llmruns.models.ItemResponse`). error: the provider error that stopped the item (None when it ended on
    an answer, valid or not); error_permanent tells whether retrying can help.
    """

    attempts: list[dict[str, Any]]
    attempt_count: int
    valid: bool = False
    display_ranking: tuple[str, ...] | None = None
    error: str | None = None
    error_permanent: bool = False
    totals: dict[str, Any] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        """True when the item ended on answers (valid or out of attempts), False after a provider error."""
        return self.error is None


def attempt_seed(base_seed: int, run_index: int, dilemma_id: str, attempt: int) -> int:
    """Return a 31-bit sampling seed per request, so a resumed or repeated suite asks the same way."""
    digest = hashlib.sha256(f"{base_seed}:{run_index}:{dilemma_id}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def item_outcome(
    backend: Backend,
    messages: Sequence[Message],
    *,
    max_attempts: int,
    seed_for_attempt: Callable[[int], int | None] = lambda attempt: None,
    options: Mapping[str, str] | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> ItemOutcome:
    """Run the ask → parse → correct loop for one item and return its `ItemOutcome`.

    The conversation grows by the model's unusable answer and a `corrective_message` naming the problem, so
    the model sees what it said. At most ``max_attempts`` answers are asked for. ``options`` (display label →
    response text) lets the parser read a ranking that quotes the responses in prose.
    """
    schema = ranking_json_schema(constrain=backend.config.constrain_to_rankings)
    conversation: list[Mapping[str, str]] = list(messages)
    attempts: list[dict[str, Any]] = []
    answers = 0
    while answers < max_attempts:
        try:
            completion = backend.complete(conversation, schema=schema, seed=seed_for_attempt(answers + 1))
        except BackendError as error:
            attempts.append(_provider_error_record(error, now()))
            return ItemOutcome(
                attempts=attempts,
                attempt_count=answers,
                error=error.message,
                error_permanent=error.permanent,
                totals=_totals(attempts),
            )
        answers += 1
        result = parse_ranking(completion.text, finish_reason=completion.finish_reason, options=options)
        attempts.append(_answer_record(answers, completion, result.status, result.detail, now()))
        if result.valid:
            return ItemOutcome(
                attempts=attempts,
                attempt_count=answers,
                valid=True,
                display_ranking=result.display_ranking,
                totals=_totals(attempts),
            )
        conversation = [
            *conversation,
            {"role": "assistant", "content": completion.text},
            corrective_message(result.detail),
        ]
    return ItemOutcome(attempts=attempts, attempt_count=answers, totals=_totals(attempts))


def _answer_record(number: int, completion: Completion, status: ParseStatus, detail: str, at: datetime) -> dict:
    return {
        "attempt": number,
        "status": str(status),
        "raw_text": completion.text,
        "detail": detail,
        "finish_reason": completion.finish_reason,
        "latency_ms": round(completion.latency_ms, 3),
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "cost": completion.cost,
        "served_by": completion.served_by,
        "constrained": completion.constrained,
        "provider_retries": completion.retries,
        "at": at.isoformat(),
    }


def _provider_error_record(error: BackendError, at: datetime) -> dict:
    return {
        "attempt": None,
        "status": str(ParseStatus.PROVIDER_ERROR),
        "raw_text": "",
        "detail": error.message,
        "permanent": error.permanent,
        "at": at.isoformat(),
    }


def _totals(attempts: list[dict[str, Any]]) -> dict[str, Any]:
    answered = [attempt for attempt in attempts if attempt["attempt"] is not None]
    last = answered[-1] if answered else {}
    return {
        "latency_ms": sum(attempt["latency_ms"] for attempt in answered),
        "prompt_tokens": sum(attempt["prompt_tokens"] for attempt in answered),
        "completion_tokens": sum(attempt["completion_tokens"] for attempt in answered),
        "cost": sum(attempt["cost"] for attempt in answered),
        "served_by": last.get("served_by", ""),
        "constrained": bool(last.get("constrained", False)),
    }
