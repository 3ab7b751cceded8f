"""Per-instrument load commands (`load_transitivity`, `load_moralbench`, `load_amaeval`) as thin shortcuts over the one
`load_instrument`, so loading, its errors and its report are written once."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand


def load_command(slug: str, help_text: str) -> type[BaseCommand]:
    """A command that runs `load_instrument SLUG [--file PATH]`."""

    class Command(BaseCommand):
        help = f"{help_text} Same as `load_instrument {slug}`. Safe to re-run: unchanged rows are not written."

        def add_arguments(self, parser):
            parser.add_argument("--file", type=Path, help="Another fixture file (default: the instrument's own).")

        def handle(self, *args, **options):
            call_command("load_instrument", slug, file=options["file"], stdout=self.stdout, stderr=self.stderr)

    return Command
