"""The offline judge: heuristics over the text, with no model and no network."""
