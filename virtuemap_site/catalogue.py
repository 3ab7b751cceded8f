"""The translation catalogue and what the interface asks of it (``manage.py check_translations``, its tests).

Three checks, all in Python (Babel reads and extracts, Django templatizes; no GNU gettext needed):

* every message the code and templates mark for translation is in ``locale/zh_Hans/LC_MESSAGES/django.po``,
  translated and not fuzzy, once;
* the catalogue holds no message nobody uses any more;
* no template shows text outside the translation machinery: text between tags and in the attributes a person reads
  (``aria-label``, ``title``, ``alt``, ``placeholder``, a button's ``value``) must come from ``{% translate %}``,
  ``{% blocktranslate %}`` or a variable. Proper names (``PROPER_NAMES``), single-letter symbols (N, q, A–E), numbers
  and punctuation may stand as they are.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.extract import extract
from babel.messages.pofile import read_po
from django.conf import settings
from django.template.base import Lexer, TokenType
from django.utils.translation.template import templatize

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
# Where the project's own code and templates live (the virtual environment and tests are not the interface).
SOURCE_PACKAGES = ("instruments", "llmruns", "scoring", "surveys", "virtuemap_site")
TEMPLATE_DIRECTORIES = ("templates",)

# Django's gettext family, as makemessages looks for it.
KEYWORDS = {
    "_": None,
    "gettext": None,
    "gettext_lazy": None,
    "gettext_noop": None,
    "ngettext": (1, 2),
    "ngettext_lazy": (1, 2),
    "pgettext": ((1, "c"), 2),
    "pgettext_lazy": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "npgettext_lazy": ((1, "c"), 2, 3),
}

# Names that read the same in every language of the interface.
PROPER_NAMES = frozenset(
    {
        "VirtueMap",
        "MoralBench",
        "AMAeval",
        "SmolLM2",
        "Prolific",
        "OpenAI",
        "JSON",
        "CSV",
        "SVG",
        "PNG",
        "API",
        "URL",
        "ID",
        "MAE",
        "F1",
        "AMA",
        "LLM",
        "LLMs",
        "ISO",
        "HMAC",
        "GPT",
        "Krippendorff",
        "Spearman",
        "Kendall",
        "Wilson",
    }
)
READABLE_ATTRIBUTES = frozenset({"aria-label", "title", "alt", "placeholder", "aria-description"})
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")


@dataclass(frozen=True)
class MessageKey:
    """A catalogue entry's identity: its context and its singular (and plural) text."""

    context: str | None
    singular: str
    plural: str | None = None

    def po(self) -> str:
        """The entry as a .po stub with an empty translation."""
        lines = [f"msgctxt {_quote(self.context)}"] if self.context else []
        lines.append(f"msgid {_quote(self.singular)}")
        if self.plural is None:
            lines.append('msgstr ""')
        else:
            lines += [f"msgid_plural {_quote(self.plural)}", 'msgstr[0] ""']
        return "\n".join(lines) + "\n"


@dataclass
class CatalogueReport:
    """What is wrong with the catalogue; empty lists mean the interface is fully translated."""

    missing: list[MessageKey] = field(default_factory=list)
    untranslated: list[MessageKey] = field(default_factory=list)
    fuzzy: list[MessageKey] = field(default_factory=list)
    duplicated: list[MessageKey] = field(default_factory=list)
    unused: list[MessageKey] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.untranslated or self.fuzzy or self.duplicated or self.unused)


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _key(message_id, context) -> MessageKey:
    if isinstance(message_id, (tuple, list)):
        return MessageKey(context or None, message_id[0], message_id[1])
    return MessageKey(context or None, message_id)


def python_sources() -> list[Path]:
    base = Path(settings.BASE_DIR)
    return sorted(
        path for package in SOURCE_PACKAGES for path in (base / package).rglob("*.py") if "migrations" not in path.parts
    )


def template_sources() -> list[Path]:
    base = Path(settings.BASE_DIR)
    return sorted(path for directory in TEMPLATE_DIRECTORIES for path in (base / directory).rglob("*.html"))


def _extract(source: bytes) -> list[MessageKey]:
    found = extract("python", io.BytesIO(source), keywords=KEYWORDS, options={"encoding": "utf-8"})
    return [_key(message, context) for _lineno, message, _comments, context in found]


def marked_messages() -> dict[MessageKey, list[str]]:
    """Every message marked for translation, with where it is used (``path:line`` is not kept; the path is)."""
    base = Path(settings.BASE_DIR)
    used: dict[MessageKey, list[str]] = {}
    for path in python_sources():
        for key in _extract(path.read_bytes()):
            used.setdefault(key, []).append(str(path.relative_to(base)))
    for path in template_sources():
        python_like = templatize(path.read_text(encoding="utf-8"), origin=str(path))
        # Templatize keeps the template's indentation, which Python's tokenizer rejects; its string literals hold
        # their newlines escaped, so dropping leading whitespace changes no message.
        flat = "\n".join(line.lstrip() for line in python_like.splitlines())
        for key in _extract(flat.encode("utf-8")):
            used.setdefault(key, []).append(str(path.relative_to(base)))
    return used


def catalogue_keys(path: Path = CATALOGUE) -> list[tuple[MessageKey, object]]:
    """The catalogue's entries in file order, duplicates kept (Babel merges them, so they are counted from the text)."""
    with path.open("rb") as handle:
        catalogue = read_po(handle, abort_invalid=True)
    entries = {(_key(message.id, message.context)): message for message in catalogue if message.id}
    order = [_key_from_block(block) for block in _entry_blocks(path.read_text(encoding="utf-8"))]
    return [(key, entries[key]) for key in order if key in entries]


def _entry_blocks(text: str) -> list[dict[str, str]]:
    """msgctxt/msgid/msgid_plural of each entry of a .po file, read from its text (continuation lines joined)."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    field_name = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#~"):
            continue
        match = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(\".*\")$", stripped)
        if match:
            previous, field_name = field_name, match.group(1)
            starts_entry = field_name == "msgctxt" or (field_name == "msgid" and previous != "msgctxt")
            if starts_entry and current:
                blocks.append(current)
                current = {}
            current[field_name] = _unquote(match.group(2))
        elif stripped.startswith('"') and field_name:
            current[field_name] = current.get(field_name, "") + _unquote(stripped)
    if current:
        blocks.append(current)
    return [block for block in blocks if block.get("msgid")]


def _key_from_block(block: dict[str, str]) -> MessageKey:
    return MessageKey(block.get("msgctxt") or None, block["msgid"], block.get("msgid_plural"))


def _unquote(quoted: str) -> str:
    body = quoted[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def check_catalogue(path: Path = CATALOGUE) -> CatalogueReport:
    used = marked_messages()
    entries = catalogue_keys(path)
    counts = Counter(key for key, _ in entries)
    translated = {key: message for key, message in entries}
    report = CatalogueReport()
    report.missing = sorted((key for key in used if key not in translated), key=_sort_key)
    report.duplicated = sorted((key for key, count in counts.items() if count > 1), key=_sort_key)
    report.unused = sorted((key for key in translated if key not in used), key=_sort_key)
    for key, message in translated.items():
        strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        if not all(strings):
            report.untranslated.append(key)
        elif message.fuzzy:
            report.fuzzy.append(key)
    return report


def deduplicate(path: Path = CATALOGUE) -> int:
    """Keep the first entry of each message and drop later copies (two branches that both added it); returns how many
    were dropped. The file is rewritten with one blank line between entries (a union merge may have glued two)."""
    seen: set[MessageKey] = set()
    kept, dropped = [], 0
    for lines in _entry_lines(path.read_text(encoding="utf-8")):
        entries = _entry_blocks("\n".join(lines))
        key = _key_from_block(entries[0]) if entries else None
        if key is not None and key in seen:
            dropped += 1
            continue
        if key is not None:
            seen.add(key)
        kept.append("\n".join(lines))
    path.write_text("\n\n".join(kept) + "\n", encoding="utf-8")
    return dropped


def _entry_lines(text: str) -> list[list[str]]:
    """The lines of each entry (its comments, then its fields); an entry ends where the next one's comment or msgid
    begins after a msgstr, or at a blank line."""
    entries: list[list[str]] = []
    current: list[str] = []
    translated = False
    for line in text.splitlines():
        stripped = line.strip()
        begins_next = translated and (stripped.startswith("#") or stripped.startswith(("msgctxt", "msgid ")))
        if not stripped or begins_next:
            if current:
                entries.append(current)
            current, translated = [], False
            if not stripped:
                continue
        current.append(line)
        translated = translated or stripped.startswith("msgstr")
    if current:
        entries.append(current)
    return entries


def _sort_key(key: MessageKey):
    return (key.context or "", key.singular)


class _ReadableText(HTMLParser):
    """Collects the text a person reads: character data outside script and style, and readable attribute values."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1
        attributes = dict(attrs)
        for name, value in attrs:
            if value and name in READABLE_ATTRIBUTES:
                self.texts.append(value)
        if tag == "input" and attributes.get("type") in ("submit", "button") and attributes.get("value"):
            self.texts.append(attributes["value"])

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.texts.append(data)


def needs_translation(text: str) -> bool:
    """True when text has a word that is neither a proper name nor a one-letter symbol."""
    return any(len(word) > 1 and word not in PROPER_NAMES for word in _WORD.findall(text))


def untranslated_text(source: str) -> list[str]:
    """The readable text of a template that does not come through the translation machinery.

    Template tags and comments are left out, ``{% blocktranslate %}`` and ``{% comment %}`` blocks skipped, and a
    variable stands in as a neutral character, so an attribute built from variables reads as having no words.
    """
    parser = _ReadableText()
    skipping = None
    for token in Lexer(source).tokenize():
        if token.token_type is TokenType.BLOCK:
            name = token.contents.split(maxsplit=1)[0] if token.contents else ""
            if skipping is None and name in ("blocktranslate", "blocktrans", "comment", "verbatim"):
                skipping = {"blocktranslate": "endblocktranslate", "blocktrans": "endblocktrans"}.get(
                    name, "end" + name
                )
                # A translated block stands for readable text, as a variable does.
                parser.feed("\x00")
            elif name == skipping:
                skipping = None
            continue
        if skipping:
            continue
        if token.token_type is TokenType.TEXT:
            parser.feed(token.contents)
        elif token.token_type is TokenType.VAR:
            parser.feed("\x00")
    parser.close()
    return [" ".join(text.split()) for text in parser.texts if needs_translation(text)]


def untranslated_templates() -> dict[str, list[str]]:
    """Each template with readable text outside the translation machinery, and that text."""
    base = Path(settings.BASE_DIR)
    found = {}
    for path in template_sources():
        texts = untranslated_text(path.read_text(encoding="utf-8"))
        if texts:
            found[str(path.relative_to(base))] = texts
    return found
