from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from instruments.virtuemap.selectors import key_edition, key_editions, validation_ever_opened
from instruments.virtuemap.validation import validation_open
from virtuemap_site.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Open a validation round from the instrument's proposed orderings for every dilemma×virtue pair, or for "
        "the pairs given with --pair D1:wisdom. Pairs that already have an open round are left alone. "
        "--language zh-hans (or zh) opens the Chinese edition's rounds instead, from the English retained keys."
    )

    def add_arguments(self, parser):
        parser.add_argument("--pair", action="append", default=[], help="DILEMMA:VIRTUE, e.g. D1:wisdom; repeatable.")
        parser.add_argument(
            "--language",
            default="en",
            help="The edition whose respondents validate the keys: en (default) or zh-hans (zh also works).",
        )
        parser.add_argument(
            "--first-time",
            action="store_true",
            help="Only when no round was ever opened (a fresh database): `make run` opens the study for a newcomer "
            "and never reopens what researchers closed.",
        )

    def handle(self, *args, **options):
        language = key_edition(options["language"], default=None)
        if language is None:
            raise CommandError(f"--language must be one of {', '.join(key_editions())}, got {options['language']!r}")
        if options["first_time"] and validation_ever_opened(language=language):
            self.stdout.write("A validation round was opened before: nothing changed.")
            return
        pairs = []
        for raw in options["pair"]:
            dilemma_id, separator, virtue_id = raw.partition(":")
            if not separator or not dilemma_id or not virtue_id:
                raise CommandError(f"--pair must look like D1:wisdom, got {raw!r}")
            pairs.append((dilemma_id, virtue_id))
        try:
            created = validation_open(pairs=pairs or None, language=language)
        except ApplicationError as error:
            raise CommandError(error.message) from None
        for candidate in created:
            self.stdout.write(f"opened {candidate}")
        self.stdout.write(self.style.SUCCESS(f"{len(created)} round(s) opened."))
