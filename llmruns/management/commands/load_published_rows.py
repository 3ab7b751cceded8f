"""Store the published rows of every instrument's paper tables (`llmruns.results.published_rows_load`)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from llmruns.results import published_rows_load


class Command(BaseCommand):
    help = (
        "Store each instrument's paper tables as published rows (results whose source is the paper), shown beside "
        "the runs on the leaderboards, model pages, comparison, API and downloads. Re-running changes nothing."
    )

    def handle(self, *args, **options) -> None:
        stored = published_rows_load()
        by_instrument: dict[str, int] = {}
        for result in stored:
            by_instrument[result.instrument] = by_instrument.get(result.instrument, 0) + 1
        counts = ", ".join(f"{slug} {count}" for slug, count in by_instrument.items())
        self.stdout.write(f"{len(stored)} published row(s) stored ({counts}).")
