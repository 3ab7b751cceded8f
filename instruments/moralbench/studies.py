"""The study people take MoralBench in, named here so that the plug-in's modules can name it without importing the
plug-in class, which imports them to wire them."""

# The study people take the questionnaire in (`questionnaire.MoralbenchQuestionnaire`).
STUDY = "moralbench"
