from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from instruments import registry
from surveys.services import consent_text_install_defaults


class Command(BaseCommand):
    help = (
        "Load the item banks of the registered instruments (all of them, or those named) from their fixtures, and the "
        "first consent text of every study that has none. Safe to re-run: unchanged rows are not written."
    )

    def add_arguments(self, parser):
        parser.add_argument("slugs", nargs="*", metavar="SLUG", help="Instruments to load (default: all).")
        parser.add_argument("--file", type=Path, help="Another fixture file (with exactly one SLUG).")

    def handle(self, *args, **options):
        slugs = options["slugs"] or list(registry.slugs())
        if options["file"] and len(slugs) != 1:
            raise CommandError("--file needs exactly one instrument SLUG.")
        try:
            plugins = [registry.instrument(slug) for slug in slugs]
        except registry.UnknownInstrument as error:
            raise CommandError(str(error)) from None
        for plugin in plugins:
            try:
                report = plugin.load(options["file"])
            except (OSError, ValidationError, KeyError, TypeError, ValueError) as error:
                message = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
                raise CommandError(f"{plugin.slug}: {options['file'] or 'fixture'}: {message}") from None
            if not report.changed:
                self.stdout.write(f"{plugin.identity.name}: already up to date, nothing changed.")
                continue
            for line in report.lines():
                self.stdout.write(f"{plugin.identity.name}: {line}")
            self.stdout.write(self.style.SUCCESS(f"{plugin.identity.name} loaded."))
        for text in consent_text_install_defaults():
            self.stdout.write(f"Installed {text}.")
