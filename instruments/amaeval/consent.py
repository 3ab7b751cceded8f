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

# The same text in Simplified Chinese (the project's translation). The reasoning to rate is shown in English.
AMAEVAL_CONSENT_ZH = {
    "version": "1",
    "language": "zh-hans",
    "title": "为道德推理评分（AMAeval）",
    "information_sheet": (
        "研究内容。你将阅读一些关于日常情境的简短道德推理，并像 AMAeval 数据集的标注者那样，评价这些推理是否站得住脚。"
        "语言模型也会为同样的推理评分，以便比较人与模型的判断。\n\n"
        "你需要做什么。首先，针对几个情境，你将评价一段推理从某一道德价值推导出一条行为准则（一条戒律）的质量："
        "1 到 4 分，若该价值在此情境中无关紧要，则选“不适用”。然后，你将判断一段推理关于某个行为的后果符合还是违背"
        "某条戒律的说法是否正确：正确或不正确。每页一段推理。推理以英文原文呈现（本平台尚未提供它们的中文版本）。\n\n"
        "匿名。我们只用一个随机编号来识别你。我们不保存你的姓名、电子邮件、IP 地址或浏览器信息。如果你来自"
        "某个研究样本库，你的样本库 ID 只以一种无法还原为原 ID 的加密（带密钥的哈希）形式保存，"
        "以确保每人只参加一次。\n\n"
        "你的回答的用途。你的评分将与数据集标注者的评分进行比较，并可能作为匿名数据集公开供研究使用，也可能作为与模型"
        "比较的人类参照。\n\n"
        "退出。你可以随时停止。同意参加后，你会得到一个参与者编号，它显示在每一页的页脚和最后一页上：凭此编号，"
        "你可以随时在任何浏览器上退出研究（通过每一页页脚的链接），你提供的所有信息都将被删除。"
    ),
    "consent_statement": "我已阅读以上信息，我年满 18 岁，同意参加本研究，并同意我的匿名评分用于研究。",
}
