"""Ready-to-run streaming training jobs on embedded data (``python -m pipelines.<name>``)."""
