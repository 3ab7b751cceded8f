"""The documentation stays true: every environment variable the code reads is documented (docs/configuration.md,
docs/deploy.md and .env.example), the README stays a short front door, and no relative link leads nowhere."""

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
README_LIMIT_BYTES = 10 * 1024
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

# Fenced blocks and code spans hold examples (JSON, shell), not links.
FENCED_BLOCK = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _variables() -> set[str]:
    found: set[str] = set()
    for path, pattern in READERS.items():
        found |= set(re.findall(pattern, (ROOT / path).read_text()))
    return found


def _prose(path: Path) -> str:
    return CODE_SPAN.sub("", FENCED_BLOCK.sub("", path.read_text()))


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces become hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    anchors: set[str] = set()
    for heading in HEADING.findall(FENCED_BLOCK.sub("", path.read_text())):
        anchor, suffix = _anchor(heading), 0
        while (f"{anchor}-{suffix}" if suffix else anchor) in anchors:
            suffix += 1
        anchors.add(f"{anchor}-{suffix}" if suffix else anchor)
    return anchors


def _dead_links(document: Path) -> list[str]:
    dead = []
    for target in INLINE_LINK.findall(_prose(document)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: …
            continue
        path_part, _, fragment = target.partition("#")
        linked = (document.parent / path_part).resolve() if path_part else document
        if not linked.exists():
            dead.append(f"{target} (no such file)")
        elif fragment and linked.suffix == ".md" and fragment not in _anchors(linked):
            dead.append(f"{target} (no such heading)")
    return dead


def test_the_code_reads_the_variables_this_test_knows_of():
    expected = {"DATABASE_URL", "REDIS_URL", "CELERY_TASK_TIME_LIMIT", "WEB_CONCURRENCY", "CELERY_CONCURRENCY"}
    assert expected <= _variables()


@pytest.mark.parametrize("document", ["docs/configuration.md", "docs/deploy.md", ".env.example"])
def test_every_environment_variable_is_documented(document):
    text = (ROOT / document).read_text()
    missing = sorted(name for name in _variables() if not re.search(rf"\b{name}\b", text))
    assert missing == [], f"{document} does not mention {', '.join(missing)}"


def test_the_readme_stays_under_10_kb():
    size = (ROOT / "README.md").stat().st_size
    assert size < README_LIMIT_BYTES, f"README.md is {size} bytes; move detail into docs/"


def test_the_documents_this_test_checks_include_the_readme_and_the_instrument_pages():
    names = {path.relative_to(ROOT).as_posix() for path in DOCUMENTS}
    assert {"README.md", "docs/README.md", "docs/instruments/virtuemap.md"} <= names


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(document):
    assert _dead_links(document) == []


def test_a_link_to_a_missing_file_or_heading_is_reported_as_dead(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## Set-up: two `make` commands\n")
    document = tmp_path / "page.md"
    document.write_text(
        "[ok](other.md#set-up-two-make-commands) [gone](missing.md) [wrong](other.md#nowhere) "
        "[web](https://example.org/x.md) `[code](missing.md)`\n\n```\n[fenced](missing.md)\n```\n"
    )
    assert _dead_links(document) == ["missing.md (no such file)", "other.md#nowhere (no such heading)"]
