"""Every environment variable the code reads is documented: docs/configuration.md, docs/deploy.md and .env.example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READERS = {
    "virtuemap_site/settings.py": r"\benv(?:\.\w+)?\(\s*\"([A-Z][A-Z0-9_]+)\"",
    "gunicorn.conf.py": r"os\.environ\.get\(\s*['\"]([A-Z][A-Z0-9_]+)['\"]",
    "Procfile": r"\$\{([A-Z][A-Z0-9_]+)",
}


def _variables() -> set[str]:
    found: set[str] = set()
    for path, pattern in READERS.items():
        found |= set(re.findall(pattern, (ROOT / path).read_text()))
    return found


def test_the_code_reads_the_variables_this_test_knows_of():
    expected = {"DATABASE_URL", "REDIS_URL", "CELERY_TASK_TIME_LIMIT", "WEB_CONCURRENCY", "CELERY_CONCURRENCY"}
    assert expected <= _variables()


@pytest.mark.parametrize("document", ["docs/configuration.md", "docs/deploy.md", ".env.example"])
def test_every_environment_variable_is_documented(document):
    text = (ROOT / document).read_text()
    missing = sorted(name for name in _variables() if not re.search(rf"\b{name}\b", text))
    assert missing == [], f"{document} does not mention {', '.join(missing)}"
