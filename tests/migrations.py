"""Moving the test database to a point in the migration history, for the tests of data migrations."""

from __future__ import annotations

from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate_to(targets: list[tuple[str, str | None]]) -> Apps:
    """Migrate to ``targets`` ((app, migration name) pairs; a name of None means the app's latest migration) and
    return the historical models of that state."""
    executor = MigrationExecutor(connection)
    leaves = dict(executor.loader.graph.leaf_nodes())
    targets = [(app, name or leaves[app]) for app, name in targets]
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps
