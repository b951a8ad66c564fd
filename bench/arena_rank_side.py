"""LMArena's own ratings library, ``arena-rank`` (PyPI, JAX), run on the same votes as our fit, for
bench/bench_anchors.py. It runs under bench/.venv-anchors/bin/python (``make bench-anchors-env``,
pinned in bench/anchors-requirements.txt), never under the site's environment; it imports nothing
of ours. Reads votes from an .npz (``a``, ``b``: model indexes, ``outcome``: 0 model_a, 1 model_b,
2/3 tie, ``m``), builds the DataFrame LMArena's notebooks pass (``model_a``, ``model_b``,
``winner``), and answers on stdout, one JSON line per command read from stdin:

- ``sandwich``: one timed run of the library's default method, ``PairDataset.from_pandas(df)``
  (the unique (model_a, model_b, outcome) rows counted) then
  ``BradleyTerry(n).compute_ratings_and_cis(dataset)`` (L-BFGS from zeros, sandwich intervals),
  the result brought back to numpy (JAX dispatches asynchronously, so a time without that would
  stop before the work ends). ``prepare_s``: from_pandas; ``fit_s``: the fit and intervals on the
  prepared dataset; ``wall_s``: both. The first command also pays JAX's compile (``cold`` true).
- ``ratings``: the last run's ratings, lower and upper bounds (in the data's model order).
- ``quit``.

With ``--bootstrap ROUNDS`` it instead runs the library's bootstrap once (``ci_method="bootstrap"``:
a ``multiprocessing.Pool`` of ``--jobs`` processes, each round an L-BFGS fit from zeros) with the
start method ``--start-method`` (the library uses multiprocessing's default; ``fork`` of a process
that has started JAX's threads can hang, so the bench runs this in its own process with a timeout)
and prints one JSON line with its time and bounds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import time

OUTCOMES = ("model_a", "model_b", "tie", "both_bad")


def cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (a bootstrap pool's)."""
    own, ended = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime


def load(path: str):  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd

    data = np.load(path, allow_pickle=False)
    m = int(data["m"])
    names = np.array([f"model-{i:03d}" for i in range(m)], dtype=object)
    return pd.DataFrame(
        {
            "model_a": names[data["a"]],
            "model_b": names[data["b"]],
            "winner": np.array(OUTCOMES, dtype=object)[data["outcome"]],
        }
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("votes")
    parser.add_argument(
        "--bootstrap", type=int, default=0, help="run the library's bootstrap with this many rounds, once"
    )
    parser.add_argument(
        "--jobs", type=int, default=-1, help="the bootstrap's pool size (-1: the library's default, cpu_count)"
    )
    parser.add_argument(
        "--start-method", default="", help="multiprocessing start method for the bootstrap ('' : the default)"
    )
    args = parser.parse_args()
    if args.start_method:
        multiprocessing.set_start_method(args.start_method, force=True)

    import numpy as np
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    df = load(args.votes)
    versions = {
        "arena_rank": _version("arena-rank"),
        "jax": _version("jax"),
        "jaxlib": _version("jaxlib"),
        "numpy": np.__version__,
    }

    if args.bootstrap:
        dataset = PairDataset.from_pandas(df)
        model = BradleyTerry(n_competitors=len(dataset.competitors))
        model.fit(dataset)
        cpu, start = cpu_s(), time.perf_counter()
        found = model.compute_ratings_and_cis(
            dataset, ci_method="bootstrap", num_bootstrap=args.bootstrap, n_jobs=args.jobs
        )
        low, high = np.asarray(found["rating_lower"]), np.asarray(found["rating_upper"])
        print(
            json.dumps(
                {
                    "bootstrap_s": time.perf_counter() - start,
                    "cpu_s": cpu_s() - cpu,
                    "rounds": args.bootstrap,
                    "start_method": multiprocessing.get_start_method(),
                    "competitors": list(found["competitors"]),
                    "lower": low.tolist(),
                    "upper": high.tolist(),
                    "versions": versions,
                }
            ),
            flush=True,
        )
        return 0

    last: dict[str, object] = {}
    cold = True
    for line in sys.stdin:
        command = line.strip()
        if command == "quit":
            break
        if command == "sandwich":
            cpu, start = time.process_time(), time.perf_counter()
            dataset = PairDataset.from_pandas(df)
            prepared, prepared_cpu = time.perf_counter(), time.process_time()
            model = BradleyTerry(n_competitors=len(dataset.competitors))
            found = model.compute_ratings_and_cis(dataset)  # ci_method="sandwich", the default
            ratings = np.asarray(found["ratings"])
            low, high = np.asarray(found["rating_lower"]), np.asarray(found["rating_upper"])
            end = time.perf_counter()
            order = [found["competitors"].index(f"model-{i:03d}") for i in range(len(found["competitors"]))]
            last = {"ratings": ratings[order].tolist(), "lower": low[order].tolist(), "upper": high[order].tolist()}
            print(
                json.dumps(
                    {
                        "wall_s": end - start,
                        "prepare_s": prepared - start,
                        "fit_s": end - prepared,
                        "cpu_s": time.process_time() - cpu,
                        "fit_cpu_s": time.process_time() - prepared_cpu,
                        "cold": cold,
                        "versions": versions,
                    }
                ),
                flush=True,
            )
            cold = False
        elif command == "ratings":
            print(json.dumps(last), flush=True)
        else:
            print(json.dumps({"error": f"unknown command {command!r}"}), flush=True)
    return 0


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    sys.exit(main())
