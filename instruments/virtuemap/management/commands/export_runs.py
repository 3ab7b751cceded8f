from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from instruments.virtuemap.selectors import run_records_export
from llmruns.models import Run


class Command(BaseCommand):
    help = "Write every finished item (or those of the given suites) as the original suite's JSON-lines records."

    def add_arguments(self, parser):
        parser.add_argument("--suite", type=int, action="append", help="Suite (run) id; repeat for several.")
        parser.add_argument("--output", "-o", default="-", help="File to write; '-' (default) is standard output.")

    def handle(self, *args, **options):
        runs = Run.objects.filter(pk__in=options["suite"]) if options["suite"] else None
        lines = (json.dumps(record, ensure_ascii=False) + "\n" for record in run_records_export(runs=runs))
        if options["output"] == "-":
            for line in lines:
                self.stdout.write(line, ending="")
            return
        with open(options["output"], "w", encoding="utf-8") as handle:
            handle.writelines(lines)
