"""Seeding the arena from a released dataset: `manage.py import_arena` on a file the size of the
Search Arena release (24,069 conversations, made here in its schema, since no dataset can be
downloaded on this machine), then the same file again (every row skipped: idempotent), then the
ratings task over the imported votes. On Postgres; one run each (minutes, not milliseconds).
Results in bench/results/arena_import.json and .md.

Run: ``.venv/bin/python bench/bench_arena_import.py`` (needs this machine's Postgres)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import recreate_database, results_dir

DB = "leaderboard_bench_import"
CONVERSATIONS = int(os.environ.get("BENCH_CONVERSATIONS", "24069"))
MODELS = [f"model-{i}" for i in range(12)]
WINNERS = ["model_a", "model_b", "tie", "tie (bothbad)", None]
ENV = {
    **os.environ,
    "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB}",
    "LEADERBOARD_VAR_DIR": str(REPO / "var" / "bench-import"),
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/3",
    "DJANGO_DEBUG": "0",
    "LEADERBOARD_LOG_LEVEL": "WARNING",
}


def conversation(n: int, rng: random.Random) -> dict:
    """One row of the released schema: one or two turns, answers with markdown and citations."""
    a, b = rng.sample(MODELS, 2)
    turns = rng.choice([1, 1, 1, 2])

    def messages() -> list[dict]:
        return [
            message
            for t in range(turns)
            for message in (
                {"role": "user", "content": f"question {n}.{t} " + "lorem ipsum " * rng.randint(2, 30)},
                {"role": "assistant", "content": "## Answer\n- point [1]\n" + "text " * rng.randint(20, 300) + "[2]"},
            )
        ]

    trace = [[["[1]", "https://en.wikipedia.org/wiki/X"], ["[2]", "https://www.nytimes.com/a"]] for _ in range(turns)]

    def metadata(name: str) -> dict:
        return {
            "citation_format_standardized": True,
            "client_country": "DE",
            "conv_id": f"c{n}",
            "formatted_messages": [{"role": "user", "content": "q"}],
            "llm_config": {"name": name, "params": {"temperature": 0.7}},
            "web_search_trace": trace,
        }

    return {
        "model_a": a,
        "model_b": b,
        "winner": rng.choice(WINNERS),
        "judge": f"{rng.randrange(3000):x}",
        "turn": turns,
        "timestamp": "2025-04-01T10:00:00+00:00",
        "messages_a": messages(),
        "messages_b": messages(),
        "system_a_metadata": metadata(a),
        "system_b_metadata": metadata(b),
        "primary_intent": "Factual Lookup",
        "secondary_intent": "Explanation",
        "languages": ["en"],
    }


def timed(*command: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=ENV, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout.strip().splitlines()[-1]


def main() -> None:
    recreate_database(DB)
    python = str(REPO / ".venv" / "bin" / "python")
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=ENV, check=True)
    path = REPO / "var" / "bench-import" / "conversations.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    with path.open("w") as out:
        for n in range(CONVERSATIONS):
            out.write(json.dumps(conversation(n, rng)) + "\n")
    first, first_said = timed(python, "manage.py", "import_arena", str(path))
    again, again_said = timed(python, "manage.py", "import_arena", str(path))
    ratings, ratings_said = timed(
        python,
        "manage.py",
        "shell",
        "-c",
        "import time; from leaderboard.arena import services; t = time.perf_counter(); "
        "n = services.ratings_compute(force=True); print(f'{n} snapshots in {time.perf_counter() - t:.2f} s')",
    )
    results = {
        "conversations": CONVERSATIONS,
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "import_s": round(first, 1),
        "import_said": first_said,
        "reimport_s": round(again, 1),
        "reimport_said": again_said,
        "ratings_s_with_process_start": round(ratings, 1),
        "ratings_said": ratings_said,
        "cpus": os.cpu_count(),
        "load_before": os.getloadavg()[0],
    }
    out_dir = results_dir()
    (out_dir / "arena_import.json").write_text(json.dumps(results, indent=1) + "\n")
    (out_dir / "arena_import.md").write_text(
        "# Seeding the arena from a released dataset\n\n"
        f"{CONVERSATIONS:,} conversations in the released schema ({results['file_mb']} MB JSONL, made by the bench), "
        f"on Postgres, "
        f"{os.cpu_count()} CPUs (load average {results['load_before']:.1f} at the end).\n\n"
        "| step | seconds | what it said |\n|---|---:|---|\n"
        f"| `import_arena` (validate every row, then import) | {results['import_s']} | {first_said[:90]} |\n"
        f"| the same file again (idempotent) | {results['reimport_s']} | {again_said[:90]} |\n"
        f"| ratings task over the imported votes (with process start) | {results['ratings_s_with_process_start']} | "
        f"{ratings_said} |\n"
    )
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
