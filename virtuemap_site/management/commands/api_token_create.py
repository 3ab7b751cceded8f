from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from virtuemap_site.errors import ApplicationError
from virtuemap_site.security import staff_api_token_create


class Command(BaseCommand):
    help = (
        "Issue an expiring API token for a staff user and print it once (only its digest is stored). "
        "Send it as 'Authorization: Token <token>'."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--days", type=int, default=None, help="Lifetime in days (default API_TOKEN_TTL_DAYS).")

    def handle(self, *args, username: str, days: int | None, **options):
        try:
            issued = staff_api_token_create(username=username, days=days)
        except ApplicationError as error:
            raise CommandError(error.message) from None
        self.stdout.write(issued.token)
        self.stderr.write(f"Expires {issued.expiry.isoformat()}. It is not shown again.")
