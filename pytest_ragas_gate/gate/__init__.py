"""The gate: the verdict from case results and the settings, with baseline, diagnosis and noise."""
