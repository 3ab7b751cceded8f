from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from instruments.virtuemap.selectors import key_count_drift


class Command(BaseCommand):
    help = "Recount N and Y of every key candidate from stored responses; exit 1 and list them if any drifted."

    def handle(self, *args, **options):
        drift = key_count_drift()
        for item in drift:
            self.stdout.write(
                f"candidate {item.candidate_id}: stored (N, Y) = {item.stored}, recounted {item.recounted}"
            )
        if drift:
            raise CommandError(f"{len(drift)} key candidate(s) drifted from their responses.")
        self.stdout.write(self.style.SUCCESS("No drift: N and Y equal the stored responses."))
