"""Running models for the site: registering them (endpoint secrets encrypted at rest), resumable
weight uploads, pre-flight, reaching a model for a generation job (``access``: the endpoint, or a model
server started from local weights), the judges configured and the GPU check (the Django half of
evaluators.llm). The generation job itself, its models, life cycle and worker, is
``leaderboard.runs.generation``."""
