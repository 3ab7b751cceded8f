"""The study people take AMAeval in, named here so that the plug-in's modules can name it without importing the
plug-in class, which imports them to wire them."""

# The study people rate reasoning in (`questionnaire.AmaevalQuestionnaire`).
STUDY = "amaeval"
