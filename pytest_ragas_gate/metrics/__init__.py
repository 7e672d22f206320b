"""Metrics: turn per-item judge verdicts into scores."""
