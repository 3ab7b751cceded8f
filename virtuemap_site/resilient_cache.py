"""The shared cache, which may be down: an outage of Redis must never turn an answer or a consent into a 500.

What the site keeps in the cache is soft state: rate-limit counters, the rotating key that hashes client addresses,
the generation numbers of the scoring snapshots. `resilient_cache` is the default cache with a fallback: when a call
fails with a connection error it is answered by a cache in this process's memory instead, and for
`RETRY_SECONDS` after that the shared cache is not tried at all, so an outage costs each web process one failed
connection per interval, not one per request. Meanwhile rate limits count per process (looser by the number of
web processes) and snapshots reload on their own timer (PROFILE_CACHE_SECONDS); once the shared cache answers
again, everything goes back to it. The outage is logged once per interval and process, never with a client detail.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache

logger = logging.getLogger(__name__)

RETRY_SECONDS = 5.0

try:
    from redis.exceptions import RedisError
except ImportError:  # pragma: no cover - redis is a requirement; this keeps the module importable without it
    RedisError = OSError  # type: ignore[assignment,misc]

# What a cache backend raises when its server is unreachable, restarting or timing out.
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError, ConnectionError, TimeoutError)


class ResilientCache:
    """The default cache's API (`get`, `set`, `add`, `incr`, …), falling back to process memory during an outage."""

    def __init__(self, alias: str = "default") -> None:
        self.alias = alias
        self.fallback = LocMemCache("resilient-cache-fallback", {"OPTIONS": {"MAX_ENTRIES": 10_000}})
        self._down_until = 0.0
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        """False while the shared cache is taken to be down (the fallback answers)."""
        return time.monotonic() >= self._down_until

    def __getattr__(self, name: str) -> Callable[..., Any]:
        primary = getattr(caches[self.alias], name)
        if not callable(primary):
            return primary
        fallback = getattr(self.fallback, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if not self.available:
                return fallback(*args, **kwargs)
            try:
                return primary(*args, **kwargs)
            except CACHE_ERRORS as error:
                self._note_outage(error)
                return fallback(*args, **kwargs)

        return call

    def _note_outage(self, error: BaseException) -> None:
        with self._lock:
            first = self.available
            self._down_until = time.monotonic() + RETRY_SECONDS
        if first:
            # The class only: a message can name the cache's host and port.
            logger.warning(
                "shared cache unavailable (%s): using this process's memory for %.0f s",
                type(error).__name__,
                RETRY_SECONDS,
            )

    def reset(self) -> None:
        """Try the shared cache again at once and forget the fallback's contents (tests)."""
        with self._lock:
            self._down_until = 0.0
        self.fallback.clear()


resilient_cache = ResilientCache()
