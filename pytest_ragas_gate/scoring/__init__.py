"""Scoring: the scheduler that asks the judge, case results, repeats and the run's judge."""
