"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for tests and benchmarks of the run-suite.

By default every chat completion answers a valid ranking (drawn from the request's seed) after ``delay``
seconds. A script of `Reply` objects replaces the default for the next requests, in order: error statuses
with headers (429 + Retry-After, 500), slow answers (client timeouts), truncated or invalid JSON.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The VirtueMap instrument's display labels: the default answer is a valid VirtueMap ranking.
DISPLAY_LABELS = ("1", "2", "3", "4", "5")

# Upper bound on any scripted delay, so a forgotten slow reply cannot hold a test thread for long.
MAX_DELAY = 30.0


@dataclass(frozen=True)
class Reply:
    """One scripted answer. ``content`` None means a valid ranking; ``status`` ≠ 200 sends an error body."""

    status: int = 200
    content: str | None = None
    finish_reason: str = "stop"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    cost: float = 0.0


class FakeProvider:
    """The server. Use as a context manager; ``base_url`` is what an OpenAI client needs."""

    def __init__(
        self,
        *,
        delay: float = 0.0,
        cost: float = 0.0,
        served_by: str = "FakeProvider",
        answer: Callable[[dict[str, Any]], str] | None = None,
        logprobs: Callable[[dict[str, Any]], list[tuple[str, float]]] | None = None,
    ) -> None:
        """``answer`` maps a request body to the answer text, replacing the default random valid ranking.
        ``logprobs`` maps a request body to the first token's candidates (token, logprob), most likely first,
        replacing the default "1" … "5"; the server returns the first ``top_logprobs`` of them."""
        self.answer = answer
        self.logprobs = logprobs
        self.delay = delay
        self.cost = cost
        self.served_by = served_by
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            return self.script.popleft() if self.script else Reply(delay=self.delay, cost=self.cost)

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        content = reply.content
        if content is None and self.answer is not None:
            content = self.answer(body)
        if content is None:
            rng = random.Random(body.get("seed", len(self.requests)))
            content = json.dumps({"ranking": rng.sample(DISPLAY_LABELS, len(DISPLAY_LABELS))}, separators=(",", ":"))
        prompt_tokens = sum(len(str(message.get("content", "")).split()) for message in body.get("messages", []))
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": reply.finish_reason,
        }
        if body.get("logprobs"):
            candidates = (
                self.logprobs(body) if self.logprobs else [(label, -float(rank)) for rank, label in enumerate("12345")]
            )
            top = [{"token": token, "logprob": logprob, "bytes": None} for token, logprob in candidates]
            first = top[0] if top else {"token": "", "logprob": 0.0, "bytes": None}
            choice["logprobs"] = {"content": [{**first, "top_logprobs": top[: body["top_logprobs"]]}]}
        return {
            "id": f"fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "provider": self.served_by,
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": len(content.split()) or 1,
                "total_tokens": prompt_tokens + (len(content.split()) or 1),
                "cost": reply.cost,
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = provider._next(body)
                time.sleep(min(reply.delay, MAX_DELAY))
                if reply.status == 200:
                    payload = provider._completion(body, reply)
                else:
                    payload = {"error": {"message": f"scripted {reply.status}", "type": "fake", "code": reply.status}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
