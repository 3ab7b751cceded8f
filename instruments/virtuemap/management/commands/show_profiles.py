from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from instruments.virtuemap.selectors import model_profile_records


class Command(BaseCommand):
    help = (
        "Print the profile of every model with stored runs, in the field names of the original suite's "
        "reference_profiles_sample.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["json", "table"], default="table")
        parser.add_argument(
            "--quantile",
            choices=["exact", "legacy"],
            default="exact",
            help="t quantile of the intervals; 'legacy' reproduces the original suite (1.96 beyond 30 df).",
        )

    def handle(self, *args, **options):
        records = model_profile_records(quantile=options["quantile"])
        if options["format"] == "json":
            self.stdout.write(json.dumps({"models": records}, indent=1))
            return
        for record in records:
            means = ", ".join(f"{virtue} {mean:.1f}" for virtue, mean in record["profile"].items())
            consistency = record["consistency_0_100"]
            self.stdout.write(
                f"{record['name']} ({record['slug']}): {record['runs']} runs; {means or 'no valid full run'}; "
                f"consistency {'n/a' if consistency is None else f'{consistency:.1f}'}; "
                f"{record['invalid_count']} invalid; "
                f"flags: {', '.join(flag['code'] for flag in record['diagnostics']['flags']) or 'none'}"
            )
