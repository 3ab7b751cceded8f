"""The studies people take VirtueMap in, named here so that the plug-in's modules can name them without importing the
plug-in class, which imports those modules to wire them."""

# Confirming or correcting key candidates (the adaptive validation study), and profiling oneself.
VALIDATION = "validation"
PROFILING = "profiling"
