"""The first version of the information sheet and consent statement of AMAeval for people (rating moral reasoning).

Installed by `load_instrument` (which installs every registered study's first consent text where it has none);
researchers change the wording in admin by adding a new version (a version someone consented to is read-only).
"""

from __future__ import annotations

AMAEVAL_CONSENT = {
    "version": "1",
    "title": "Rating moral reasoning (AMAeval)",
    "information_sheet": (
        "What the study is. You will read short pieces of moral reasoning about everyday situations and rate how "
        "sound they are, as the annotators of the AMAeval data set did. Language models rate the same reasoning, "
        "so that people's judgement and the models' can be compared.\n\n"
        "What you will do. First, for a few situations, you rate how well a reasoning derives a rule of conduct (a "
        "precept) from a moral value: 1 to 4, or N/A when the value does not matter in the situation. Then you "
        "judge whether a reasoning correctly says that an action's consequence satisfies or contradicts a precept: "
        "correct or incorrect. One piece of reasoning per page.\n\n"
        "Anonymity. You are identified only by a random number. We do not store your name, e-mail, IP address or "
        "browser details. If you come from a research panel, your panel ID is stored only in a scrambled (keyed-hash) "
        "form that cannot be turned back into the ID, so that nobody takes part twice.\n\n"
        "Use of your answers. Your ratings are compared with the data set's annotators' and may be published as an "
        "anonymous data set for research, and as the human reference the models are compared with.\n\n"
        "Withdrawing. You may stop at any time. When you agree you get a participant reference, shown at the foot of "
        "every page and at the end: with it you can withdraw at any time, from any browser (the link at the foot of "
        "every page), and everything you gave us is deleted."
    ),
    "consent_statement": (
        "I have read the information above, I am 18 or older, and I agree to take part and to the research use of "
        "my anonymous ratings."
    ),
}
