"""The first version of the information sheet and consent statement of VirtueMap's studies.

Installed by `load_instrument` where a study has no consent text yet; researchers change the wording in admin by
adding a new version (a version someone consented to is read-only). The texts give no number of items or minutes:
every information sheet states them below the text, computed from the settings (`Instrument.study_length`), with
the researcher, institution, contact and ethics approval.
"""

from __future__ import annotations

VALIDATION_CONSENT = {
    "version": "1",
    "title": "Checking how well orderings express the virtues",
    "information_sheet": (
        "What the study is. VirtueMap describes ethical choices through five virtues. For each everyday "
        "dilemma, five possible responses have been ordered from the most to the least expressive of a "
        "virtue. You will see some of these orderings and either confirm them or correct them.\n\n"
        "What you will do. You will see short items, one per page (how many, and how long they take, is stated "
        "below). Each shows a dilemma, its five responses, one virtue with its definition, and a proposed "
        "ordering.\n\n"
        "Anonymity. You are identified only by a random number. We do not store your name, e-mail, IP "
        "address or browser details. If you come from a research panel, your panel ID is stored only in a "
        "scrambled (keyed-hash) form that cannot be turned back into the ID, so that nobody takes part twice.\n\n"
        "Optional questions. You may tell us your age band, gender, country, education and native language. "
        "Every question can be skipped.\n\n"
        "Use of your answers. Your answers decide which orderings become the keys used to score profiles, and "
        "they may be published as an anonymous data set for research.\n\n"
        "Withdrawing. You may stop at any time. When you agree you get a participant reference, shown at the foot of "
        "every page and at the end: with it you can withdraw at any time, from any browser (the link at the foot of "
        "every page), and everything you gave us is deleted."
    ),
    "consent_statement": (
        "I have read the information above, I am 18 or older, and I agree to take part and to the research "
        "use of my anonymous answers."
    ),
    # The first built-in wording, which stated about ten items and 10 minutes.
    "supersedes": ("b4d330c9e1875f89cee508a48ef3e750290658055cca2fb15950952650efc95f",),
}

PROFILING_CONSENT = {
    "version": "1",
    "title": "Research use of your profiling answers",
    "information_sheet": (
        "What happens to your answers. If you agree, your rankings and your virtue profile are stored under a "
        "random number so that they can be used for research, for example to compare people with language "
        "models. We do not store your name, e-mail, IP address or browser details, and we ask nothing about "
        "you.\n\n"
        "Withdrawing. When you agree you get a participant reference, shown at the foot of every page: with it you "
        "can withdraw at any time, from any browser (the link at the foot of every page), and everything stored is "
        "deleted."
    ),
    "consent_statement": "I am 18 or older and I agree to the research use of my anonymous answers.",
    # The first built-in wording, which promised optional questions the questionnaire never asks.
    "supersedes": ("594be24f2b439fd53a6d57e9894c5442bbf5b6b6e785edf053b706ab7d78a489",),
}
