"""A thread-safe request pacer: at most ``requests_per_minute`` request starts per minute in this process."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    """Spaces request starts at least 60 / rpm seconds apart; rpm = 0 means no limit.

    Spacing rather than a burst allowance keeps a concurrent batch from hitting a provider with `concurrency`
    requests in the same instant, which is what trips per-second limits first.
    """

    def __init__(
        self,
        requests_per_minute: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_start = 0.0

    def acquire(self) -> float:
        """Block until a request may start; return how long it waited, in seconds."""
        if not self.interval:
            return 0.0
        with self._lock:
            now = self._clock()
            start = max(now, self._next_start)
            self._next_start = start + self.interval
        wait = start - now
        if wait > 0:
            self._sleep(wait)
        return wait
