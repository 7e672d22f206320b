"""Live mode: the targets that answer the cases, oracle retrieval and latency."""
