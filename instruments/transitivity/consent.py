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

# The same text in Simplified Chinese (the project's translation). The situations themselves are shown in English.
TRANSITIVITY_CONSENT_ZH = {
    "version": "1",
    "language": "zh-hans",
    "title": "两种情境中哪一种在道德上更糟",
    "information_sheet": (
        "研究内容。你将阅读成对的简短情境，其中有人做了一些人们可能认为在道德上错误的事，请你选出你认为更糟的那一个。"
        "同样的情境对也会展示给语言模型，以便在同一工具上比较人与模型。\n\n"
        "你需要做什么。每页展示两个情境，请选出更糟的一个。有些情境对稍后会再次出现，有时顺序相反。"
        "情境以英文原文呈现（本平台尚未提供它们的中文版本）。\n\n"
        "匿名。我们只用一个随机编号来识别你。我们不保存你的姓名、电子邮件、IP 地址或浏览器信息。如果你来自"
        "某个研究样本库，你的样本库 ID 只以一种无法还原为原 ID 的加密（带密钥的哈希）形式保存，"
        "以确保每人只参加一次。\n\n"
        "你的回答的用途。我们将检验你的选择是否体现出对各项道德原则一致的排序，你的选择也可能作为匿名数据集公开，"
        "供研究使用。\n\n"
        "退出。你可以随时停止。同意参加后，你会得到一个参与者编号，它显示在每一页的页脚和最后一页上：凭此编号，"
        "你可以随时在任何浏览器上退出研究（通过每一页页脚的链接），你提供的所有信息都将被删除。"
    ),
    "consent_statement": "我已阅读以上信息，我年满 18 岁，同意参加本研究，并同意我的匿名回答用于研究。",
}
