from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from llmruns.models import Suite
from llmruns.services import suite_publish


class Command(BaseCommand):
    help = "Publish a finished suite as its model's profile in the gallery and the API."

    def add_arguments(self, parser):
        parser.add_argument("suite", type=int, help="Suite id.")

    def handle(self, *args, **options):
        suite = Suite.objects.filter(pk=options["suite"]).select_related("model").first()
        if suite is None:
            raise CommandError(f"no suite {options['suite']}")
        try:
            profile = suite_publish(suite=suite)
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        self.stdout.write(self.style.SUCCESS(f"Published {profile.model}: {profile.runs} valid full runs."))
