"""Multi-LCB: LiveCodeBench code generation in twelve languages (import, prompts, judging, metrics).

The evaluator class lives in ``evaluators.multi_lcb.evaluator`` and is registered as ``multi-lcb``;
importing this package does not import the sandbox.
"""

from __future__ import annotations

__all__: list[str] = []
