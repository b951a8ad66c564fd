"""Running models for the site: encrypted endpoint secrets, resumable weight uploads, pre-flight
and generation of predictions in workers (the Django half of evaluators.llm)."""
