"""Loading an instrument's fixture into its tables: idempotent upserts and what they changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import models


@dataclass
class InstrumentLoadReport:
    """How many rows `instrument_load` created and updated; all zero on a re-run of the same file."""

    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)

    def count(self, bucket: dict[str, int], model: type[models.Model]) -> None:
        bucket[model.__name__] = bucket.get(model.__name__, 0) + 1

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def lines(self) -> list[str]:
        """What a load command prints: "Model: N created", then "Model: N updated", by model name."""
        return [
            f"{model_name}: {count} {verb}"
            for verb, counts in (("created", self.created), ("updated", self.updated))
            for model_name, count in sorted(counts.items())
        ]


def upsert(
    model: type[models.Model], report: InstrumentLoadReport, lookup: dict[str, Any], values: dict[str, Any]
) -> models.Model:
    """Create the row, or update only the fields that differ, so a re-run writes nothing."""
    row = model.objects.filter(**lookup).first()
    if row is None:
        report.count(report.created, model)
        return model.objects.create(**lookup, **values)
    stale = {name: value for name, value in values.items() if getattr(row, name) != value}
    if stale:
        for name, value in stale.items():
            setattr(row, name, value)
        row.save(update_fields=list(stale))
        report.count(report.updated, model)
    return row
