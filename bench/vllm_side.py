"""vLLM's own benchmark client, run under vLLM's Python (``.venv-vllm-cpu``) by ``bench/bench_vllm.py``.

Reads a JSON file of chat requests (the exact messages, sampling settings and token limits that our
generation job sends), hands them to ``vllm.benchmarks.serve.benchmark`` (the code behind
``vllm bench serve``: its aiohttp session, its ``openai-chat`` request function, its concurrency
limit) as pre-built chat messages, and prints one JSON line with the duration and the throughput
that vLLM's client measured. Nothing of this project is imported: this is vLLM's baseline.

Usage: vllm_side.py REQUESTS_JSON BASE_URL MODEL TOKENIZER_DIR MAX_CONCURRENCY
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any


def main(path: str, base_url: str, model: str, tokenizer_dir: str, concurrency: int) -> dict[str, Any]:
    from vllm.benchmarks.datasets.datasets import SampleRequest
    from vllm.benchmarks.serve import TaskType, benchmark
    from vllm.tokenizers import get_tokenizer

    with open(path, encoding="utf-8") as handle:
        bodies: list[dict[str, Any]] = json.load(handle)
    tokenizer = get_tokenizer(tokenizer_dir)
    requests = [
        SampleRequest(
            prompt="",
            prompt_len=0,
            expected_output_len=int(body["max_tokens"]),
            chat_messages=body["messages"],
            request_overrides={k: v for k, v in body.items() if k not in ("messages", "max_tokens")},
        )
        for body in bodies
    ]
    result = asyncio.run(
        benchmark(
            task_type=TaskType.GENERATION,
            endpoint_type="openai-chat",
            api_url=f"{base_url}/chat/completions",
            base_url=base_url.removesuffix("/v1"),
            model_id=model,
            model_name=model,
            tokenizer=tokenizer,
            input_requests=requests,
            logprobs=None,
            request_rate=float("inf"),
            burstiness=1.0,
            disable_tqdm=True,
            num_warmups=0,
            profile=False,
            selected_percentile_metrics=["e2el"],
            selected_percentiles=[50.0],
            ignore_eos=False,
            goodput_config_dict={},
            max_concurrency=concurrency,
            lora_modules=None,
            extra_headers=None,
            extra_body=None,
            ready_check_timeout_sec=0,
        )
    )
    return {
        "duration_s": result["duration"],
        "completed": result["completed"],
        "failed": result["failed"],
        "request_throughput": result["request_throughput"],
        "total_output_tokens": result["total_output_tokens"],
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))), flush=True)
