"""The rehearsal's verdicts: one check per property a researcher relies on, over the one pilot of the session."""

from __future__ import annotations

from tests.rehearsal import audit


def explain(problems: list[str]) -> str:
    shown = problems[:40]
    more = f"\n… and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    return f"{len(problems)} problem(s):\n" + "\n".join(shown) + more


def test_every_person_consents_and_finishes_their_journey(records):
    problems = audit.journeys_went_as_expected(records)
    assert not problems, explain(problems)


def test_no_person_in_a_browser_is_flagged_as_automation_and_the_script_is(records):
    problems = audit.automation_flags(records)
    assert not problems, explain(problems)


def test_every_panel_participant_who_finished_has_a_code_and_a_way_back(records):
    problems = audit.panel_codes(records, closed=False)
    assert not problems, explain(problems)


def test_the_stored_data_counts_what_the_pilot_did(records):
    problems = audit.counts_match(records)
    assert not problems, explain(problems)


def test_nothing_is_orphaned_in_the_database_or_the_exports(records, exports):
    problems = audit.nothing_orphaned(records, exports)
    assert not problems, explain(problems)


def test_every_browser_answer_keeps_its_time_on_item(records):
    problems = audit.time_on_item_kept(records)
    assert not problems, explain(problems)


def test_every_answer_records_the_language_it_was_shown_in(records):
    problems = audit.answer_languages(records)
    assert not problems, explain(problems)


def test_every_study_is_exported_from_admin_one_row_per_answer_with_its_language(records, exports):
    problems = audit.exports_complete(records, exports)
    assert not problems, explain(problems)


def test_a_panel_participant_of_a_closed_study_leaves_with_its_own_code(records):
    problems = audit.panel_codes(records, closed=True)
    assert not problems, explain(problems)


def test_no_study_is_advertised_in_a_language_in_which_it_is_closed(records):
    problems = audit.closed_study_not_advertised(records)
    assert not problems, explain(problems)


def test_no_public_page_shows_people_from_fewer_than_the_minimum(records, browser, site):
    from django.conf import settings

    minimum = settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS
    paths = ["/amaeval/", "/moralbench/", "/transitivity/", "/leaderboards/", "/compare/"]
    problems = audit.public_aggregates(audit.public_pages(browser, site, paths), minimum)
    assert not problems, explain(problems)


def test_a_withdrawal_by_reference_asks_once_before_it_deletes(records):
    problems = audit.withdrawals_confirmed(records)
    assert not problems, explain(problems)
