"""Models of the transitivity instrument: the vignettes, LLM choice runs and people's pairwise answers."""
