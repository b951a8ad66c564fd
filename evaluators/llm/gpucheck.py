"""The GPU path, end to end, for a person with a GPU machine (``scripts/gpu-check`` runs this).

Serves a model with ``vllm serve`` through :class:`ModelServer` (the tiny model made here, or a local
model given with ``--model PATH``: GPU machines often have no internet), sends the first N Multi-LCB
sample items through ``ChatClient.chat_many`` with the evaluator's own ``build_requests``, scores them
with ``score_item`` (when the sandbox is available), and prints throughput and GPU memory before the
start, while serving and after the stop. ``--kind transformers`` runs the same path on a CPU.

    python -m evaluators.llm.gpucheck [--model PATH] [--items N] [--kind vllm|transformers]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from evaluators.core.registry import get_evaluator
from evaluators.core.types import ModelRequest, Prediction
from evaluators.llm.client import ChatClient
from evaluators.llm.server import ModelServer, ServerSpec, gpu_memory_used_mib
from evaluators.llm.tiny import create_tiny_model
from evaluators.llm.types import ChatResult, ModelError


def run_check(model: Path, *, items: int, kind: str, max_tokens: int, concurrency: int) -> dict[str, Any]:
    evaluator = get_evaluator("multi-lcb")
    sample = list(evaluator.import_release(evaluator.sample_dataset()))[:items]
    settings = {"n": 1, "max_tokens": max_tokens, "temperature": 0.0}
    requests = [r for item in sample for r in evaluator.build_requests(item, settings)]
    report: dict[str, Any] = {"model": str(model), "kind": kind, "items": len(sample), "requests": len(requests),
                              "gpu_memory_mib_before": gpu_memory_used_mib()}
    spec = ServerSpec(kind=kind, model=str(model), max_model_len=4096 if kind == "vllm" else None,
                      gpu_memory_utilization=0.5, start_timeout_s=1200)
    server = ModelServer(spec)
    started = time.monotonic()
    outcomes: dict[str, ChatResult | ModelError] = {}
    lock = threading.Lock()

    def on_result(request: ModelRequest, outcome: ChatResult | ModelError) -> None:
        with lock:
            outcomes[request.item_id] = outcome

    try:
        with server:
            report["start_s"] = round(time.monotonic() - started, 1)
            report["gpu_memory_mib_serving"] = gpu_memory_used_mib()
            client = ChatClient(server.endpoint(), max_concurrency=concurrency, timeout_s=600)
            began = time.monotonic()
            client.chat_many(requests, on_result=on_result)
            elapsed = time.monotonic() - began
            usage = client.usage
    except ModelError as exc:
        report.update(error=f"{exc.kind}: {exc}", log=str(server.log_path))
        return report
    failures = {k: f"{v.kind}: {v}" for k, v in outcomes.items() if isinstance(v, ModelError)}
    report.update(generation_s=round(elapsed, 2), requests_per_s=round(len(requests) / elapsed, 2),
                  completion_tokens=usage.completion_tokens, prompt_tokens=usage.prompt_tokens,
                  completion_tokens_per_s=round(usage.completion_tokens / elapsed, 1),
                  failures=failures, gpu_memory_mib_after_stop=gpu_memory_used_mib(),
                  gpu_memory_released=server.gpu_memory_released, log=str(server.log_path))
    report["scores"] = _score(evaluator, sample, outcomes)
    return report


def _score(evaluator: Any, sample: list[Any], outcomes: dict[str, ChatResult | ModelError]) -> Any:
    try:
        scores = []
        for item in sample:
            outcome = outcomes.get(item.id)
            texts = outcome.texts if isinstance(outcome, ChatResult) else [""]
            predictions = [Prediction(item.id, text, index) for index, text in enumerate(texts)]
            scores.append(evaluator.score_item(item, predictions))
    except Exception as exc:  # noqa: BLE001 - a machine without the sandbox still proves the GPU path
        return f"not scored: {type(exc).__name__}: {exc}"
    return {score.item_id: {"pass@1": score.scores.get("pass@1"), "verdicts": score.detail.get("verdicts")}
            for score in scores}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, help="a local model directory (default: a tiny model made here)")
    parser.add_argument("--items", type=int, default=8, help="how many Multi-LCB sample items (default 8)")
    parser.add_argument("--kind", choices=("vllm", "transformers"), default="vllm")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        # head_dim 64 (hidden 256, 4 heads): what vLLM's attention kernels support.
        model = args.model or create_tiny_model(Path(scratch) / "tiny", hidden_size=256)
        report = run_check(model, items=args.items, kind=args.kind, max_tokens=args.max_tokens,
                           concurrency=args.concurrency)
    print(json.dumps(report, indent=2))
    return 1 if report.get("error") or report.get("failures") else 0


if __name__ == "__main__":
    sys.exit(main())
