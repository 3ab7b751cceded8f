"""The interface in two languages: the Chinese catalogue covers every marked message, and templates mark their text.

The checks live in virtuemap_site/catalogue.py (also `manage.py check_translations`); this file holds them to the
catalogue and the templates as they are, and tests the language choice a respondent makes.
"""

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from virtuemap_site import catalogue


def _entry(message):
    """A message as (context, id, translation), plural ids and translations as tuples whichever reader read it."""
    as_tuple = lambda value: tuple(value) if isinstance(value, (list, tuple)) else value  # noqa: E731
    return message.context, as_tuple(message.id), as_tuple(message.string)


def _problems(keys):
    return [f"{key.context or ''}|{key.singular}" for key in keys]


def test_the_chinese_catalogue_translates_every_marked_message_once_and_nothing_else():
    report = catalogue.check_catalogue()
    assert _problems(report.missing) == [], "run `make messages` and translate what it prints"
    assert _problems(report.untranslated) == []
    assert _problems(report.fuzzy) == []
    assert _problems(report.duplicated) == []
    assert _problems(report.unused) == [], "remove entries no code or template uses"


def test_no_template_shows_text_outside_the_translation_machinery():
    assert catalogue.untranslated_templates() == {}


def test_the_compiled_catalogue_is_the_current_one():
    compiled = catalogue.CATALOGUE.with_suffix(".mo")
    assert compiled.exists(), "run `make test`: it compiles the catalogue"
    with catalogue.CATALOGUE.open("rb") as source, compiled.open("rb") as binary:
        written = {_entry(m) for m in read_po(source) if m.id and m.string and not m.fuzzy}
        served = {_entry(m) for m in read_mo(binary) if m.id}
    assert served == written, "the compiled catalogue is stale: run `make test` (it recompiles it)"


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("<p>Thank you</p>", ["Thank you"]),
        ('<p>{% translate "Thank you" %}</p>', []),
        ("<p>{% blocktranslate %}Thanks, {{ name }}{% endblocktranslate %}</p>", []),
        ('<button aria-label="Close">{{ label }}</button>', ["Close"]),
        ("<a title=\"{% translate 'Close' %}\">×</a>", []),
        ("{% comment %}Why this is here{% endcomment %}<th>N</th><td>VirtueMap · 4.2</td>", []),
        ("<script>const answer = 'yes';</script><style>p { color: red; }</style>", []),
        ('<input type="submit" value="Send">', ["Send"]),
    ],
)
def test_the_template_check_finds_readable_text_and_only_that(source, flagged):
    assert catalogue.untranslated_text(source) == flagged


@pytest.mark.django_db
def test_a_link_with_lang_sets_the_language_of_the_page_and_of_the_visit(client):
    page = client.get("/?lang=zh-hans")
    assert '<html lang="zh-hans">' in page.content.decode()
    assert "跳到正文" in page.content.decode()
    assert page.cookies["django_language"].value == "zh-hans"
    # The next page, with no ?lang, stays in Chinese: the cookie remembers the choice.
    assert '<html lang="zh-hans">' in client.get("/").content.decode()
    assert '<html lang="en">' in client.get("/?lang=en").content.decode()


@pytest.mark.django_db
def test_the_browser_language_is_used_without_a_choice_and_an_unknown_lang_is_ignored(client):
    assert '<html lang="zh-hans">' in client.get("/", headers={"accept-language": "zh-CN,zh;q=0.9"}).content.decode()
    assert '<html lang="en">' in client.get("/", headers={"accept-language": "fr"}).content.decode()
    ignored = client.get("/?lang=klingon")
    assert ignored.status_code == 200 and '<html lang="en">' in ignored.content.decode()
    assert "django_language" not in ignored.cookies


@pytest.mark.django_db
def test_every_page_offers_the_other_language_on_the_same_page(client):
    page = client.get("/withdraw/?panel=x").content.decode()
    assert 'href="/withdraw/?lang=zh-hans&amp;panel=x"' in page
    assert "简体中文" in page and "English" in page


def test_deduplicate_keeps_the_first_copy_of_an_entry_two_merged_branches_both_added(tmp_path):
    merged = tmp_path / "django.po"
    merged.write_text(
        'msgid ""\nmsgstr ""\n"Language: zh_Hans\\n"\n\n'
        '# one branch\nmsgid "Back"\nmsgstr "上一页"\n'
        '# the other branch, glued on by the union merge\nmsgid "Back"\nmsgstr "返回"\n\n'
        'msgid "Next"\nmsgstr "下一页"\n',
        encoding="utf-8",
    )
    assert catalogue.deduplicate(merged) == 1
    text = merged.read_text(encoding="utf-8")
    assert text.count('msgid "Back"') == 1 and "上一页" in text and "返回" not in text and "下一页" in text
    assert [key.singular for key, _ in catalogue.catalogue_keys(merged)] == ["Back", "Next"]
