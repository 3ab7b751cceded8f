from instruments.management.shortcuts import load_command

Command = load_command(
    "moralbench",
    "Load MoralBench: its four item sets as published (MFQ_30, MFQ_30_compare, 6_concepts, 6_concepts_compare) and "
    "the paper's system prompt, and the first consent texts of studies that have none.",
)
