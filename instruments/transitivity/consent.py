"""The first version of the information sheet and consent statement of the transitivity questionnaire.

Installed by `load_transitivity` where the study has no consent text yet; researchers change the wording in admin by
adding a new version (a version someone consented to is read-only).
"""

from __future__ import annotations

TRANSITIVITY_CONSENT = {
    "version": "1",
    "title": "Which of two situations is morally worse",
    "information_sheet": (
        "What the study is. You will read pairs of short situations in which someone does something that "
        "people might think is morally wrong, and choose the one you think is worse. The same pairs are also "
        "shown to language models, so that people and models can be compared on one instrument.\n\n"
        "What you will do. Each page shows two situations; you pick the worse one. Some pairs come back later, "
        "sometimes in the other order.\n\n"
        "Anonymity. You are identified only by a random number. We do not store your name, e-mail, IP "
        "address or browser details. If you come from a research panel, your panel ID is stored only in a "
        "scrambled (keyed-hash) form that cannot be turned back into the ID, so that nobody takes part twice.\n\n"
        "Use of your answers. Your choices are tested for a consistent ordering of moral principles and may be "
        "published as an anonymous data set for research.\n\n"
        "Withdrawing. You may stop at any time. When you agree you get a participant reference, shown at the foot of "
        "every page and at the end: with it you can withdraw at any time, from any browser (the link at the foot of "
        "every page), and everything you gave us is deleted."
    ),
    "consent_statement": (
        "I have read the information above, I am 18 or older, and I agree to take part and to the research "
        "use of my anonymous answers."
    ),
    # The first built-in wording, which stated 15 minutes.
    "supersedes": ("ccb71faa4d89a1f71f155c3592992bb316381e6a0f220b6209ec59100f6d27ca",),
}
