"""Generation: a registered model's answers, produced in workers before its runs are scored. One
GenerationJob per submission (one model load for all its runs); the models are
``leaderboard.runs.models.GenerationJob`` and ``GeneratedOutput``.

``jobs`` is the job's life cycle in the database (claim, heartbeat, stored answers, hand-over to
scoring, failure, re-queue), ``plans`` what a job has left to send for each run, and ``worker`` what
the Celery task runs: reach the model (``leaderboard.modelhost.access``), send the requests, store the
answers and hand each finished run to scoring. Import the module you need; this package holds no
names of its own.
"""
