from instruments.management.shortcuts import load_command

Command = load_command(
    "amaeval",
    "Load the AMAeval dataset: 40 scenarios, 200 derivations of precepts (task 1) and 1,090 satisfied or "
    "contradicted reasonings (task 2) with their annotations.",
)
