"""Check the Chinese catalogue against the interface: ``manage.py check_translations [--stubs]``.

Exits non-zero and lists what is missing, untranslated, fuzzy, duplicated or unused, and each template with text
outside the translation machinery. ``--stubs`` prints the missing entries as .po text to append to the catalogue;
``--deduplicate`` drops the second copy of an entry that two merged branches both added.
"""

from django.core.management.base import BaseCommand, CommandError

from virtuemap_site import catalogue


class Command(BaseCommand):
    help = "Check locale/zh_Hans/LC_MESSAGES/django.po against the messages the code and templates use."

    def add_arguments(self, parser):
        parser.add_argument("--stubs", action="store_true", help="Print the missing entries as .po stubs.")
        parser.add_argument(
            "--deduplicate",
            action="store_true",
            help="Drop later copies of an entry (after merging two branches that both added it), then check.",
        )

    def handle(self, *args, stubs=False, deduplicate=False, **options):
        if deduplicate:
            self.stdout.write(f"dropped {catalogue.deduplicate()} duplicated entries")
        report = catalogue.check_catalogue()
        if stubs:
            for key in report.missing:
                self.stdout.write(key.po())
            return
        problems = 0
        for label, keys in (
            ("missing", report.missing),
            ("untranslated", report.untranslated),
            ("fuzzy", report.fuzzy),
            ("duplicated", report.duplicated),
            ("unused", report.unused),
        ):
            for key in keys:
                problems += 1
                self.stdout.write(f"{label}: {key.singular!r}" + (f" (context {key.context!r})" if key.context else ""))
        for path, texts in catalogue.untranslated_templates().items():
            problems += 1
            self.stdout.write(f"{path}: text outside the translation machinery: {'; '.join(texts)[:300]}")
        if problems:
            raise CommandError(f"{problems} translation problem(s)")
        self.stdout.write("The Chinese catalogue covers the interface.")
