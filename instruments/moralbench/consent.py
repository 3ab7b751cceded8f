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

# The same text in Simplified Chinese (the project's translation). The questions themselves are shown in English.
MORALBENCH_CONSENT_ZH = {
    "version": "1",
    "language": "zh-hans",
    "title": "道德基础：MoralBench 问题",
    "information_sheet": (
        "研究内容。你将回答一些简短的问题，内容涉及判断是非时什么是重要的：某个陈述是否相关或正确，某个行为在道德上"
        "是否错误，以及两个陈述或情境中哪一个你认为更相关或更道德。语言模型也回答同样的问题，以便比较人与模型。\n\n"
        "你需要做什么。每页展示一个问题和两个答案，请选择其中一个。两个答案的顺序是随机的，并会被记录。"
        "问题以英文原文呈现（本平台尚未提供它们的中文版本）。\n\n"
        "匿名。我们只用一个随机编号来识别你。我们不保存你的姓名、电子邮件、IP 地址或浏览器信息。如果你来自"
        "某个研究样本库，你的样本库 ID 只以一种无法还原为原 ID 的加密（带密钥的哈希）形式保存，"
        "以确保每人只参加一次。\n\n"
        "你的回答的用途。你的回答将按各项道德基础计分，并可能作为匿名数据集公开供研究使用，也可能作为与模型比较的"
        "人类参照。\n\n"
        "退出。你可以随时停止。同意参加后，你会得到一个参与者编号，它显示在每一页的页脚和最后一页上：凭此编号，"
        "你可以随时在任何浏览器上退出研究（通过每一页页脚的链接），你提供的所有信息都将被删除。"
    ),
    "consent_statement": "我已阅读以上信息，我年满 18 岁，同意参加本研究，并同意我的匿名回答用于研究。",
}
