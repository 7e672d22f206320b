"""Judges: the offline heuristics and the LLM judges, behind one protocol."""
