"""Reaching models: the OpenAI-compatible chat client, the model-server launcher (`vllm serve`,
`transformers serve`), pre-flight checks, judges, search backends, citation parsing and the arena's
responders. Django-free, like the rest of ``evaluators``."""
