from instruments.management.shortcuts import load_command

Command = load_command(
    "transitivity",
    "Load the transitivity instrument: 7 principles, 6 severity blocks of vignettes with human ratings, and the "
    "paper's prompt.",
)
