"""Hot queries compiled to SQL once per process and database, then run with new values.

Building a queryset and compiling it to SQL costs Django more Python than the database takes to run the statement:
the item page's candidate query spent about 2 of its 3 ms there (`benchmarks/hot_queries.py` times each prepared
statement against its queryset). A `PreparedQuery` keeps the queryset as the statement's only definition. The first
time it runs on a database it builds the queryset with a marker value for each parameter and compiles it; afterwards
it sends the same SQL with each parameter's value, made ready for the database by its model field as the ORM would,
in the places where the markers were.

    candidates = PreparedQuery(
        lambda language: KeyCandidate.objects.filter(language=language).values_list("pk", named=True),
        language=KeyCandidate._meta.get_field("language"),
    )
    candidates.run(language="en")  # the named rows, as list(queryset) would give them

A `PreparedUpdate` does the same for ``queryset.update(**values)``, where resolving and compiling cost more again: an
answer's update of its candidate's two counters takes 0.81 ms through the queryset and 0.18 ms prepared
(`benchmarks/hot_queries.py`).

    def count_one(candidate, now):  # the rows to change, and their new values as update() takes them
        return KeyCandidate.objects.filter(pk=candidate), {"n_evaluations": F("n_evaluations") + 1, "updated_at": now}

    counted = PreparedUpdate(count_one, candidate=KeyCandidate._meta.pk, now=KeyCandidate._meta.get_field("updated_at"))
    counted.run(candidate=7, now=timezone.now())  # the number of rows changed, as update() gives it

Only what a parameter's marker reaches is a parameter: everything else in the queryset is fixed when it is compiled.
Compiling refuses a queryset where a marker does not come out as a parameter, or comes out written into the SQL
too, so a prepared query never runs with a stale value.
"""

from __future__ import annotations

import copy
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Field, QuerySet
from django.db.models import fields as model_fields
from django.db.models.sql import UpdateQuery
from django.db.transaction import TransactionManagementError


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[tuple[int, str], ...]  # (position in params, parameter name)
    # What a run needs besides the SQL (`_CompiledOnce._kept`): a query's queryset, built with the markers, and its
    # compiler, whose select, klass_info and converters read the rows of every run; an update needs nothing.
    kept: Any = None


class _CompiledOnce:
    """What a prepared query and a prepared update share: compiling with markers once per process, and running the
    SQL with each parameter's value, made ready for the database by its model field, where its marker was."""

    def __init__(self, build: Callable[..., Any], *, using: str = DEFAULT_DB_ALIAS, **parameters: Field) -> None:
        self.build = build
        self.using = using
        self.parameters = parameters
        self._compiled: _Compiled | None = None

    def _sql_and_params(self, values: dict[str, Any]) -> tuple[Any, _Compiled, list[Any]]:
        """This thread's connection, the compiled statement and the parameters for ``values``."""
        if set(values) != set(self.parameters):
            raise TypeError(f"expected the parameters {sorted(self.parameters)}, got {sorted(values)}")
        connection = connections[self.using]
        compiled = self._compiled or self._compile(connection)
        params = list(compiled.params)
        for position, name in compiled.slots:
            params[position] = self.parameters[name].get_db_prep_value(values[name], connection)
        return connection, compiled, params

    def _compile(self, connection: Any) -> _Compiled:
        markers = {name: _marker(field) for name, field in self.parameters.items()}
        built, compiler = self._built_and_compiler(markers)
        sql, params = compiler.as_sql()  # a locking query is compiled in the caller's transaction, as the ORM asks
        prepared = {name: field.get_db_prep_value(markers[name], connection) for name, field in self.parameters.items()}
        slots = tuple(
            (position, name)
            for position, param in enumerate(params)
            for name, marker in prepared.items()
            if type(param) is type(marker) and param == marker
        )
        missing = set(markers) - {name for _, name in slots}
        inlined = {name for name, marker in prepared.items() if str(marker) in sql}
        if missing or inlined:
            names = sorted(missing | inlined)
            raise ImproperlyConfigured(f"parameters {names} do not reach the query as parameters only")
        self._compiled = _Compiled(sql=sql, params=tuple(params), slots=slots, kept=self._kept(built, compiler))
        return self._compiled

    def _built_and_compiler(self, markers: dict[str, Any]) -> tuple[Any, Any]:
        raise NotImplementedError

    def _kept(self, built: Any, compiler: Any) -> Any:
        """What of the compiling a run reuses besides the SQL: nothing, unless a subclass says so."""
        return None


class PreparedQuery(_CompiledOnce):
    """A queryset, built by ``build(**parameters)``, compiled once per process and run with new values by `run`.

    ``parameters`` names each parameter's model field: it turns a value into what the database is sent (a UUID into
    text on SQLite, an aware datetime into UTC), as the ORM does for a lookup on that field.
    """

    def run(self, **values: Any) -> list[Any]:
        """What ``list(build(**values))`` would give (model instances with their related objects and annotations,
        or a values_list's rows), from the SQL compiled once: Django's own iterable reads the rows, through a copy
        of the first compiler that answers with that SQL and these values."""
        connection, compiled, params = self._sql_and_params(values)
        built, first_compiler = compiled.kept
        locks = built.query.select_for_update and connection.features.has_select_for_update
        if locks and connection.get_autocommit():
            # The ORM's own guard: a lock outside a transaction would be released at once.
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        compiler = copy.copy(first_compiler)
        compiler.connection = connection  # this thread's: a connection serves only the thread that opened it
        compiler.as_sql = lambda *args, **kwargs: (compiled.sql, tuple(params))
        queryset = built._chain()
        queryset.query.get_compiler = lambda *args, **kwargs: compiler
        return list(queryset)

    def _built_and_compiler(self, markers: dict[str, Any]) -> tuple[QuerySet, Any]:
        queryset = self.build(**markers).using(self.using)
        return queryset, queryset.query.get_compiler(using=self.using)

    def _kept(self, built: QuerySet, compiler: Any) -> tuple[QuerySet, Any]:
        return built, compiler


class PreparedUpdate(_CompiledOnce):
    """An update, ``queryset.update(**values)`` where ``build(**parameters)`` gives ``(queryset, values)``, compiled
    once per process and run with new values by `run`.

    Only an update of one table's rows, chosen by conditions on that table. For any other, Django rewrites the update
    around a search for the rows: a subquery on PostgreSQL and SQLite, but a search run while compiling where the
    database cannot update from a subquery of the same table (MySQL) or the model has a parent table, and compiling
    once would keep what that search found. Refused on every database, so a prepared update means the same on all.
    ``parameters`` as for `PreparedQuery`.
    """

    def run(self, **values: Any) -> int:
        """What ``queryset.update(**new_values)`` would do and give (the number of rows changed), from the SQL
        compiled once. Like it, an error marks the caller's transaction for rollback."""
        connection, compiled, params = self._sql_and_params(values)
        with transaction.mark_for_rollback_on_error(using=self.using), connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            return cursor.rowcount

    def _built_and_compiler(self, markers: dict[str, Any]) -> tuple[UpdateQuery, Any]:
        queryset, new_values = self.build(**markers)
        query = queryset.query.chain(UpdateQuery)
        query.add_update_values(new_values)
        query.clear_select_clause()
        query.get_initial_alias()
        if query.related_updates or query.count_active_tables() != 1:
            raise ImproperlyConfigured("a prepared update changes the rows of one table, chosen on that table alone")
        return query, query.get_compiler(using=self.using)


def _marker(field: Field) -> Any:
    """A value of the field's type that no query holds by chance."""
    if isinstance(field, model_fields.UUIDField):
        return uuid.uuid4()
    if isinstance(field, model_fields.DateTimeField):
        return datetime(1901, 1, 1, microsecond=secrets.randbelow(10**6), tzinfo=UTC).replace(
            second=secrets.randbelow(60), minute=secrets.randbelow(60)
        )
    if isinstance(field, model_fields.IntegerField):
        # Within every integer column's range: the ORM turns a lookup out of range into no query at all.
        return 10**9 + secrets.randbelow(10**9)
    if isinstance(field, model_fields.CharField):
        return f"prepared-query-marker-{secrets.token_hex(8)}"
    raise ImproperlyConfigured(f"no marker for a {type(field).__name__} parameter")
