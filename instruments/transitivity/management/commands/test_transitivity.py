"""`python manage.py test_transitivity FILE.json`: the API's transitivity test on a file, printed as JSON."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from instruments.transitivity.analysis import choice_vectors_test
from virtuemap_site.errors import ApplicationError


class Command(BaseCommand):
    help = (
        'Test choice vectors against WUM, HCM and G-RUM. FILE.json holds {"alternatives": [...], "vectors": '
        '[[...], ...], "eps": 1e-6}, as POST /api/v1/transitivity/test/ takes it ("-" reads standard input); the '
        "answer is the API's JSON. No limit on the number of vectors."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSON file with alternatives, vectors and optionally eps; - for stdin")
        parser.add_argument("--indent", type=int, default=2, help="JSON indentation (0: one line)")

    def handle(self, *args, **options):
        data = self._read(options["file"])
        try:
            answer = choice_vectors_test(data=data, vector_limit=None)
        except ApplicationError as error:
            problems = "\n".join(f"  {item['problem']}: {item['message']}" for item in error.extra.get("errors", []))
            raise CommandError(f"{error.message}\n{problems}".rstrip()) from None
        self.stdout.write(json.dumps(answer, indent=options["indent"] or None, ensure_ascii=False))

    def _read(self, path: str):
        try:
            if path == "-":
                return json.load(sys.stdin)
            with open(path, encoding="utf-8") as file:
                return json.load(file)
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise CommandError(f"{path} is not JSON: {error}") from None
