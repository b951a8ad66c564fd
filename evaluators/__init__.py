"""Django-free evaluation engine: the evaluator protocol, the sandbox and one package per benchmark.

Nothing under ``evaluators`` imports Django, so every benchmark can be scored from the command line
(``python -m evaluators``) exactly as the Celery workers score it.
"""
