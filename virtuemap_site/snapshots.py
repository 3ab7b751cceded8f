"""Read-mostly data kept in each process's memory, with a generation number in the cache to invalidate it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from django.conf import settings

from virtuemap_site.resilient_cache import resilient_cache as cache


class CachedSnapshot[T]:
    """A value loaded from the database once and reused until it may be stale.

    Each process keeps the value itself, so a hit costs at most one cache read of a small integer: unpickling the
    value on every request would cost more than loading it does rarely (and its garbage made collection pauses).
    `forget()` raises the generation in the cache and drops the value here, so this process reloads at once. Another
    process reloads when the generation differs from the one it loaded under, which it asks the cache at most every
    ``SNAPSHOT_CHECK_SECONDS`` (a read of a shared cache is a round trip, as dear as the rest of a score request), and
    after ``PROFILE_CACHE_SECONDS`` in any case, which bounds staleness when the cache is per process (the default).
    """

    instances: list[CachedSnapshot] = []

    def __init__(self, name: str) -> None:
        CachedSnapshot.instances.append(self)
        self.generation_key = f"snapshot-generation:{name}"
        self._lock = threading.Lock()
        self._value: T | None = None
        self._generation: int | None = None
        self._loaded_at = 0.0
        self._checked_at = 0.0

    def get(self, load: Callable[[], T]) -> T:
        now = time.monotonic()
        with self._lock:
            if self._kept(now) and now - self._checked_at < settings.SNAPSHOT_CHECK_SECONDS:
                return self._value
        generation = cache.get(self.generation_key, 0)
        with self._lock:
            if self._kept(now) and generation == self._generation:
                self._checked_at = now
                return self._value
        value = load()
        with self._lock:
            self._value, self._generation = value, generation
            self._loaded_at = self._checked_at = time.monotonic()
        return value

    def _kept(self, now: float) -> bool:
        """Whether a value is kept here, loaded less than ``PROFILE_CACHE_SECONDS`` ago."""
        return self._value is not None and now - self._loaded_at < settings.PROFILE_CACHE_SECONDS

    def forget(self) -> None:
        try:
            cache.incr(self.generation_key)
        except ValueError:  # no generation yet in this cache
            cache.set(self.generation_key, 1, timeout=None)
        with self._lock:
            self._value = None

    @classmethod
    def forget_all_in_this_process(cls) -> None:
        """Drop every kept value here without touching the cache (tests: each starts from its own database)."""
        for snapshot in cls.instances:
            with snapshot._lock:
                snapshot._value = None
