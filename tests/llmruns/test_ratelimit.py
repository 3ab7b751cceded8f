from __future__ import annotations

from llmruns.ratelimit import RateLimiter


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.slept = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def test_requests_are_spaced_by_sixty_seconds_over_the_rate():
    clock = FakeClock()
    limiter = RateLimiter(120, clock=clock, sleep=clock.sleep)

    waits = [limiter.acquire() for _ in range(3)]

    assert waits == [0.0, 0.5, 0.5]


def test_a_rate_of_zero_means_no_limit():
    assert RateLimiter(0).acquire() == 0.0
