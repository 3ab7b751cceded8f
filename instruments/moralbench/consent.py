"""The first version of the information sheet and consent statement of MoralBench for people.

Installed by `load_instrument` (which installs every registered study's first consent text where it has none);
researchers change the wording in admin by adding a new version (a version someone consented to is read-only).
"""

from __future__ import annotations

MORALBENCH_CONSENT = {
    "version": "1",
    "title": "Moral foundations: the MoralBench questions",
    "information_sheet": (
        "What the study is. You will answer short questions about what matters in judging right and wrong: "
        "whether a statement is relevant or correct, whether a described action is morally wrong, and which of two "
        "statements or situations you find more relevant or more moral. Language models answer the same questions, "
        "so that people and models can be compared.\n\n"
        "What you will do. Each page shows one question with two answers; you pick one. The order of the two "
        "answers is random and recorded.\n\n"
        "Anonymity. You are identified only by a random number. We do not store your name, e-mail, IP address or "
        "browser details. If you come from a research panel, your panel ID is stored only in a scrambled (keyed-hash) "
        "form that cannot be turned back into the ID, so that nobody takes part twice.\n\n"
        "Use of your answers. Your answers are scored per moral foundation and may be published as an anonymous "
        "data set for research, and as the human reference the models are compared with.\n\n"
        "Withdrawing. You may stop at any time. When you agree you get a participant reference, shown at the foot of "
        "every page and at the end: with it you can withdraw at any time, from any browser (the link at the foot of "
        "every page), and everything you gave us is deleted."
    ),
    "consent_statement": (
        "I have read the information above, I am 18 or older, and I agree to take part and to the research use of "
        "my anonymous answers."
    ),
    # The first built-in wording, which stated 10 to 15 minutes.
    "supersedes": ("41affff2bd238dba591f013833ffaa372d6bc09dbeec6f55bc25fd756fc5a3fa",),
}
