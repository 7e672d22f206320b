"""Trust in the judge: human labels, judge-human agreement and prediction-powered intervals."""
