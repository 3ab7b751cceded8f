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

# The same texts in Simplified Chinese (the project's translation), installed beside the English as their own
# version 1; the consent page shows the text in the request's language (`surveys.selectors.consent_text_current`).
VALIDATION_CONSENT_ZH = {
    "version": "1",
    "language": "zh-hans",
    "title": "检验各种排序能否体现美德",
    "information_sheet": (
        "研究内容。VirtueMap 通过五种美德来描述伦理选择。对于每一个日常伦理困境，五种可能的回应已按照"
        "最能体现到最不能体现某一美德的顺序排列。你将看到其中一些排序，并确认或纠正它们。\n\n"
        "你需要做什么。你将逐页看到一些简短的题目，每页一题（题目数量和所需时间见下文）。每道题展示一个困境、"
        "它的五种回应、一种美德及其定义，以及一个建议的排序。困境和回应是本项目从英文翻译的中文版本。\n\n"
        "匿名。我们只用一个随机编号来识别你。我们不保存你的姓名、电子邮件、IP 地址或浏览器信息。如果你来自"
        "某个研究样本库，你的样本库 ID 只以一种无法还原为原 ID 的加密（带密钥的哈希）形式保存，"
        "以确保每人只参加一次。\n\n"
        "选答问题。你可以告诉我们你的年龄段、性别、国家、受教育程度和母语。每个问题都可以跳过。\n\n"
        "你的回答的用途。你的回答将决定哪些排序成为为美德画像计分的计分键，并可能作为匿名数据集公开，供研究使用。\n\n"
        "退出。你可以随时停止。同意参加后，你会得到一个参与者编号，它显示在每一页的页脚和最后一页上：凭此编号，"
        "你可以随时在任何浏览器上退出研究（通过每一页页脚的链接），你提供的所有信息都将被删除。"
    ),
    "consent_statement": "我已阅读以上信息，我年满 18 岁，同意参加本研究，并同意我的匿名回答用于研究。",
}

PROFILING_CONSENT_ZH = {
    "version": "1",
    "language": "zh-hans",
    "title": "你的画像问卷回答的研究用途",
    "information_sheet": (
        "你的回答将如何处理。如果你同意，你的排序和你的美德画像将以一个随机编号保存，以便用于研究，例如将人与"
        "语言模型进行比较。我们不保存你的姓名、电子邮件、IP 地址或浏览器信息，也不询问任何关于你的情况。"
        "困境和回应是本项目从英文翻译的中文版本。\n\n"
        "退出。同意后，你会得到一个参与者编号，它显示在每一页的页脚：凭此编号，你可以随时在任何浏览器上退出研究"
        "（通过每一页页脚的链接），所有保存的信息都将被删除。"
    ),
    "consent_statement": "我年满 18 岁，同意我的匿名回答用于研究。",
}
