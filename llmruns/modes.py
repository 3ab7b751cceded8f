"""Response modes: how one trial is answered, without the database. Every instrument picks one (or writes a chain).

A mode gets the trial as plain data (`TrialWork`) and an `Asker`, which sends each request to the model (or to the
judge) under the run's rate limit and records it verbatim: messages, raw text, log-probabilities, tokens, cost,
latency and what the instrument read from it. Modes:

- `GeneratedAnswer`: free text (or structured output), read by the instrument; an unusable reply is followed by a
  corrective message naming the problem, up to ``max_attempts`` replies.
- `LabelChoice`: probabilities over a fixed label set, from the first token's log-probabilities, or from the labels'
  frequencies over repeated samples when the model returns none.
- A chain of steps with a judge step is a `ResponseMode` subclass of the instrument's own, asking through the same
  `Asker` (``judge=True`` sends a request to the run's judge model).

A provider error that survived the backend's own retries propagates out of the mode: the engine then stores the
attempts made and leaves the trial to be asked again on resume, instead of storing a result built on a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from instruments.base import Answer, AnswerStatus, Message, ResponseMode, TrialWork
from llmruns.backends.base import Backend, BackendError, Completion, FirstToken, OutputConstraint
from llmruns.labels import LabelReading, reading_from_logprobs, reading_from_masses, reading_from_samples, sample_counts

__all__ = ["Asker", "GeneratedAnswer", "LabelChoice", "ResponseMode", "TrialWork"]


def _now() -> str:
    return datetime.now(UTC).isoformat()


class Asker:
    """Sends a trial's requests and records each one as an attempt (see `llmruns.models.Attempt`).

    ``pace`` is called before every request (the run's rate limiter). ``records`` lists the attempts in order; the
    engine stores them with the trial's outcome.
    """

    def __init__(self, backend: Backend, *, judge: Backend | None = None, pace: Callable[[], Any] = lambda: None):
        self.backend = backend
        self.judge = judge
        self.pace = pace
        self.records: list[dict[str, Any]] = []

    def _backend(self, judge: bool) -> Backend:
        if not judge:
            return self.backend
        if self.judge is None:
            raise BackendError("this step needs a judge model, and the run has none", permanent=True)
        return self.judge

    def complete(
        self,
        messages: Sequence[Message],
        *,
        read: Callable[[Completion], Answer],
        step: str = "answer",
        constraint: OutputConstraint | None = None,
        seed: int | None = None,
        judge: bool = False,
        counts_as_answer: bool = True,
        max_tokens: int | None = None,
    ) -> tuple[Completion, Answer]:
        """Ask for a reply, read it with ``read``, record both; raises `BackendError` (recorded first).

        ``max_tokens`` caps this reply's length where a method fixes it (default: the model's setting)."""
        backend = self._backend(judge)
        self.pace()
        at = _now()
        try:
            if max_tokens is None:
                completion = backend.complete(messages, constraint=constraint, seed=seed)
            else:
                completion = backend.complete(messages, constraint=constraint, seed=seed, max_tokens=max_tokens)
        except BackendError as error:
            self.records.append(_error_record(step, messages, error, at, judge=judge))
            raise
        answer = read(completion)
        request = {"seed": seed, "constrained": bool(constraint and backend.config.constrained_decoding)}
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        record = _record(
            step, messages, request, answer, completion, at, judge=judge, counts_as_answer=counts_as_answer
        )
        self.records.append(
            record
            | {
                "raw_text": completion.text,
                "finish_reason": completion.finish_reason,
                "completion_tokens": completion.completion_tokens,
                "constrained": completion.constrained,
            }
        )
        return completion, answer

    def first_token(
        self,
        messages: Sequence[Message],
        *,
        labels: Sequence[str],
        top_k: int,
        read: Callable[[FirstToken], Answer],
        step: str = "answer",
        seed: int | None = None,
        judge: bool = False,
    ) -> tuple[FirstToken, Answer]:
        """Ask for the first token's distribution over ``labels``, read it, record both; raises `BackendError`."""
        backend = self._backend(judge)
        self.pace()
        at = _now()
        try:
            first = backend.first_token(messages, top_k=top_k, seed=seed, labels=labels)
        except BackendError as error:
            self.records.append(_error_record(step, messages, error, at, judge=judge))
            raise
        answer = read(first)
        request = {"seed": seed, "top_k": top_k, "labels": list(labels)}
        record = _record(step, messages, request, answer, first, at, judge=judge, counts_as_answer=True)
        self.records.append(
            record
            | {
                "logprobs": [{"token": token, "logprob": logprob} for token, logprob in first.candidates],
                "raw": first.raw,
            }
        )
        return first, answer


def _record(
    step: str,
    messages: Sequence[Message],
    request: dict[str, Any],
    answer: Answer,
    reply: Completion | FirstToken,
    at: str,
    *,
    judge: bool,
    counts_as_answer: bool,
) -> dict[str, Any]:
    """What every answered request records: the request, what was read from it, and its cost."""
    return {
        "step": step,
        "judge": judge,
        "counts_as_answer": counts_as_answer,
        "messages": [dict(message) for message in messages],
        "request": request,
        "status": str(answer.status),
        "detail": answer.detail,
        "latency_ms": round(reply.latency_ms, 3),
        "prompt_tokens": reply.prompt_tokens,
        "cost": reply.cost,
        "served_by": reply.served_by,
        "provider_retries": reply.retries,
        "at": at,
    }


def _error_record(step: str, messages: Sequence[Message], error: BackendError, at: str, *, judge: bool) -> dict:
    return {
        "step": step,
        "judge": judge,
        "counts_as_answer": False,
        "messages": [dict(message) for message in messages],
        "status": str(AnswerStatus.PROVIDER_ERROR),
        "detail": error.message,
        "permanent": error.permanent,
        "at": at,
    }


@dataclass(frozen=True)
class GeneratedAnswer(ResponseMode):
    """Free-text answers read by ``read``; an unusable one is followed by ``corrective(answer)`` and asked again.

    At most ``max_attempts`` replies per trial; the last answer stands when none was usable. ``constraint`` is the
    instrument's description of a valid reply, which a backend turns into structured output or a grammar. With
    ``reply_kept`` (the default) the conversation grows: the unusable reply and the corrective are appended to what
    was sent; without it every re-ask is the first request with the corrective appended, the reply not sent back (the
    original VirtueMap run-suite's way).
    """

    read: Callable[[TrialWork, Completion], Answer]
    corrective: Callable[[Answer], Message] | None = None
    max_attempts: int = 1
    constraint: OutputConstraint | None = None
    reply_kept: bool = True

    def answer(self, trial: TrialWork, ask: Asker) -> Answer:
        conversation = list(trial.messages)
        answer = Answer(AnswerStatus.UNPARSEABLE, detail="not asked")
        for attempt in range(1, self.max_attempts + 1):
            completion, answer = ask.complete(
                conversation,
                read=lambda completion: self.read(trial, completion),
                step="answer" if attempt == 1 else "re-ask",
                constraint=self.constraint,
                seed=trial.seed(attempt),
            )
            if answer.valid or self.corrective is None:
                return answer
            if self.reply_kept:
                conversation = [*conversation, {"role": "assistant", "content": completion.text}]
            else:
                conversation = list(trial.messages)
            conversation.append(self.corrective(answer))
        return answer


@dataclass(frozen=True)
class LabelChoice(ResponseMode):
    """Probabilities over ``labels``: one first-token request (``method`` "logprobs"), or ``samples`` answers each
    read by ``label_of_answer`` (``method`` "sampling"). ``value(trial, reading)`` turns the reading into the
    instrument's canonical answer; a reading with no label at all is MISSING, with the reason."""

    labels: tuple[str, ...]
    value: Callable[[TrialWork, LabelReading], Any]
    method: str = "logprobs"
    top_k: int = 20
    samples: int = 20
    label_of_answer: Callable[[str], str | None] = field(default=lambda text: None)

    def answer(self, trial: TrialWork, ask: Asker) -> Answer:
        if self.method == "sampling":
            return self._sampled(trial, ask)
        _, answer = ask.first_token(
            trial.messages,
            labels=self.labels,
            top_k=self.top_k,
            read=lambda first: self._answer(trial, self._reading(first)),
            seed=trial.seed(1),
        )
        return answer

    def _reading(self, first: FirstToken) -> LabelReading:
        if first.label_masses is not None:
            return reading_from_masses(first.label_masses, self.labels, absent_reason="every label has probability 0")
        return reading_from_logprobs(first.candidates, self.labels, top_k=self.top_k)

    def _sampled(self, trial: TrialWork, ask: Asker) -> Answer:
        named: list[str | None] = []
        for sample in range(1, self.samples + 1):

            def read(completion: Completion) -> Answer:
                label = self.label_of_answer(completion.text)
                named.append(label)
                if label is None:
                    return Answer(AnswerStatus.UNPARSEABLE, detail="names no label")
                return Answer(AnswerStatus.VALID, value=label)

            ask.complete(trial.messages, read=read, step=f"sample {sample}", seed=trial.seed(sample))
        return self._answer(trial, reading_from_samples(sample_counts(named, self.labels), self.labels))

    def _answer(self, trial: TrialWork, reading: LabelReading) -> Answer:
        value = self.value(trial, reading)
        if reading.missing:
            return Answer(AnswerStatus.MISSING, value=value, detail=reading.missing_reason)
        return Answer(AnswerStatus.VALID, value=value)
