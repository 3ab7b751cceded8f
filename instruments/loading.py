"""Loading an instrument's fixture into its tables: idempotent upserts and what they changed."""

from __future__ import annotations

from collections.abc import Iterable
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
    _update_changed(row, values, report)
    return row


def _update_changed(row: models.Model, values: dict[str, Any], report: InstrumentLoadReport) -> None:
    """Save only the fields of ``row`` whose value differs from ``values`` (nothing when none does)."""
    stale = {name: value for name, value in values.items() if getattr(row, name) != value}
    if stale:
        for name, value in stale.items():
            setattr(row, name, value)
        row.save(update_fields=list(stale))
        report.count(report.updated, type(row))


def upsert_rows(
    model: type[models.Model], report: InstrumentLoadReport, rows: Iterable[tuple[dict[str, Any], dict[str, Any]]]
) -> list[models.Model]:
    """`upsert` for many rows of one model in a few statements: the model's rows are read once, the new ones are
    inserted in bulk, and only the fields that differ are updated. Returns the rows in the order given.

    Meant for an instrument's own tables, which hold its fixture and nothing else (every row is read to match them).
    Lookups name the same fields in every row; a related row in a lookup matches by its primary key. Rows are created
    without `save()` signals (bulk insert): use `upsert` for a model whose signals matter.
    """
    rows = list(rows)
    if not rows:
        return []
    names = list(rows[0][0])
    attributes = [model._meta.get_field(name).attname for name in names]

    def key(lookup: dict[str, Any]) -> tuple:
        return tuple(value.pk if isinstance(value, models.Model) else value for value in (lookup[n] for n in names))

    existing = {tuple(getattr(row, a) for a in attributes): row for row in model.objects.all()}
    result: list[models.Model] = []
    new: list[models.Model] = []
    for lookup, values in rows:
        row = existing.get(key(lookup))
        if row is None:
            row = model(**lookup, **values)
            new.append(row)
            report.count(report.created, model)
        else:
            _update_changed(row, values, report)
        result.append(row)
    model.objects.bulk_create(new, batch_size=500)
    return result
