"""Command line for the evaluation engine: score a predictions file exactly as a worker does.

    python -m evaluators score --benchmark multi-lcb --dataset RELEASE_OR_ITEMS.jsonl \
        --predictions preds.jsonl [--concurrency N] [--setting key=value ...] [--seed N] [--out results.json]
    python -m evaluators score --benchmark policon --dataset RELEASE_DIR --predictions preds.jsonl \
        --judge http://127.0.0.1:8001/v1,MODEL[,API_KEY_ENV] [--judge-revision R] [--judge-prompt-version V]
    python -m evaluators items --benchmark multi-lcb --release RELEASE.jsonl --out items.jsonl
    python -m evaluators items --benchmark indic-vision-ocr --release RELEASE_DIR_OR.parquet --out items.jsonl --media
    DIR python -m evaluators list

A judged benchmark needs ``--judge``: the same Judge a worker builds from ``LEADERBOARD_JUDGES``, with
its own bounded concurrency (``--judge-concurrency``). Bad input (unknown benchmark, unreadable or
malformed dataset or predictions, bad setting, a missing or malformed ``--judge``) prints a clear
message and exits with status 2; an unavailable sandbox or judge exits with status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evaluators.core.evaluator import Evaluator
from evaluators.core.files import ItemsFile, open_items, parse_predictions, write_items
from evaluators.core.media import DirectoryMedia
from evaluators.core.registry import benchmark_name, evaluator_for, evaluator_version, registered_keys
from evaluators.core.runner import score_items
from evaluators.core.types import DatasetError, ItemScore, MetricValue, PredictionsError
from evaluators.core.types import InfrastructureError as CoreInfrastructureError

if TYPE_CHECKING:
    from evaluators.llm.judges import Judge


class UsageError(Exception):
    """Bad input from the user: reported without a traceback, exit status 2."""


class InfrastructureError(Exception):
    """The scoring machinery (the sandbox, the judge) failed: exit status 1."""


def _parse_settings(pairs: Sequence[str]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--setting {pair!r}: expected key=value")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        settings[key.strip()] = value
    return settings


def _evaluator(key: str, settings: dict[str, Any], judge: Judge | None = None) -> Evaluator:
    """The registry's evaluator as a worker gets it: settings applied, then the judge."""
    try:
        return evaluator_for(key, settings=settings, judge=judge)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    except ValueError as exc:  # a setting the evaluator does not take
        raise UsageError(str(exc)) from None


def _is_items_file(path: Path) -> bool:
    """Whether ``path`` is a normalized items file rather than a release, told by its first record: an
    item (``id`` and ``payload``) or a shared part (told from the line's head: it can hold a whole
    problem's tests)."""
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                if raw.startswith(b'{"shared": "'):  # a shared part, written first: its head is enough
                    return True
                try:
                    record = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise UsageError(f"{path}: line {number} is not valid JSON ({exc})") from None
                if not isinstance(record, dict):
                    raise UsageError(f"{path}: line {number} is not a JSON object")
                return ("id" in record or "shared" in record) and "payload" in record
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror})") from None
    raise UsageError(f"{path}: the file is empty")


def load_dataset(evaluator: Evaluator, path: Path, workdir: Path) -> ItemsFile:
    """Items from a normalized items file, the benchmark's release file (told apart by the first
    record's keys), a release's Parquet file or a release directory (PoliCon's task_datas), read on
    demand: a release is imported into an items file in ``workdir`` first (streamed, as the site
    imports it), so only the items being scored are ever in memory. Images are only hashed: scoring
    never reads them."""
    if path.suffix not in (".jsonl", ".parquet") and not path.is_dir():
        raise UsageError(
            f"{path}: expected a .jsonl or .parquet file or a release directory (a release or a normalized items file)"
        )
    try:
        if path.suffix == ".jsonl" and not path.is_dir() and _is_items_file(path):
            items = open_items(path)
        else:
            imported = workdir / "items.jsonl"
            write_items(evaluator.import_release(path), imported)
            items = open_items(imported)
    except DatasetError as exc:
        raise UsageError(f"{path}: {exc}") from None
    if not len(items):
        raise UsageError(f"{path}: the dataset holds no items")
    return items


def _fmt(value: float | None, percent: bool) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value * 100:.1f}" if percent else f"{value:+.4f}"


def format_table(evaluator: Evaluator, metrics: Sequence[MetricValue]) -> str:
    """A plain-text table of metrics with their 95% intervals."""
    percent_keys = {c.key for c in evaluator.metric_columns if c.format == "percent"} | {"verdict_share"}
    rows = [("metric", "slice", "value", "95% CI", "n")]
    for m in metrics:
        percent = m.key in percent_keys
        where = ", ".join(f"{k}={v}" for k, v in m.slice.items()) or "(all)"
        ci = f"[{_fmt(m.ci_low, percent)}, {_fmt(m.ci_high, percent)}]" if m.ci_low is not None else "-"
        rows.append((m.key + (" %" if percent else ""), where, _fmt(m.value, percent), ci, str(m.n)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows)


def cmd_score(args: argparse.Namespace) -> int:
    settings = _parse_settings(args.setting or [])
    judge, judge_label = _judge(args)
    evaluator = _evaluator(args.benchmark, settings, judge)
    with tempfile.TemporaryDirectory(prefix="evaluators-score-") as workdir:
        return _score(
            args,
            settings,
            evaluator,
            load_dataset(evaluator, Path(args.dataset), Path(workdir)),
            judge_label,
            Path(workdir),
        )


class _SpilledScores:
    """Item scores written to a file in ``workdir`` as they complete (each as it will appear in the
    results file), then read back one at a time in the dataset's order: a run's scores are never all
    in memory. Keeps an offset and a length per item."""

    def __init__(self, workdir: Path, ids: Sequence[str]) -> None:
        self._position = {item_id: i for i, item_id in enumerate(ids)}
        self._offsets = np.full(len(ids), -1, dtype=np.int64)
        self._lengths = np.zeros(len(ids), dtype=np.int64)
        self._handle = (workdir / "item_scores.json").open("w+b")  # the file goes with workdir

    def __enter__(self) -> _SpilledScores:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()

    def add(self, score: ItemScore) -> None:
        data = _nested(score.to_dict()).encode("utf-8")
        position = self._position[score.item_id]
        self._offsets[position], self._lengths[position] = self._handle.seek(0, os.SEEK_END), len(data)
        self._handle.write(data)

    def in_order(self) -> Iterator[str]:
        for offset, length in zip(self._offsets.tolist(), self._lengths.tolist()):
            if offset >= 0:
                self._handle.seek(offset)
                yield self._handle.read(length).decode("utf-8")


def _nested(value: Any) -> str:
    """``value`` as ``json.dumps(..., indent=1)`` writes it two levels down (an element of the results'
    ``item_scores`` list): each of its lines indented by two more spaces (JSON strings hold no newline)."""
    return "\n".join("  " + line for line in json.dumps(value, indent=1, ensure_ascii=False).split("\n"))


def _write_result(path: Path, head: dict[str, Any], item_scores: Iterable[str]) -> None:
    """The results file: ``head`` and its ``item_scores`` list, the bytes ``json.dumps({**head,
    "item_scores": [...]}, indent=1)`` would give, written one item at a time."""
    text = json.dumps({**head, "item_scores": []}, indent=1, ensure_ascii=False)
    tail = '\n "item_scores": []\n}'  # the last key, so the end of the text
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:  # renamed when whole: never a half-written file
            handle.write(text[: -len(tail)] + '\n "item_scores": [')
            count = 0
            for count, item in enumerate(item_scores, start=1):
                handle.write(("," if count > 1 else "") + "\n" + item)
            handle.write("\n ]\n}\n" if count else "]\n}\n")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _score(
    args: argparse.Namespace,
    settings: dict[str, Any],
    evaluator: Evaluator,
    items: ItemsFile,
    judge_label: str,
    workdir: Path,
) -> int:
    predictions_path = Path(args.predictions)
    try:
        data = predictions_path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{predictions_path}: cannot be read ({exc.strerror})") from None
    try:
        predictions = parse_predictions(data, items.ids(), require_all=not args.allow_missing)
    except PredictionsError as exc:
        lines = [f"{predictions_path}: {len(exc.problems)} problem(s) found"]
        for line, fld, message in exc.problems:
            where = f"line {line}" if line is not None else "file"
            lines.append(f"  {where}" + (f", field '{fld}'" if fld else "") + f": {message}")
        raise UsageError("\n".join(lines)) from None
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    left_out = 0
    if args.allow_missing:  # an explicit subset; otherwise an unanswered item is scored, as on a worker
        answered = {prediction.item_id for prediction in predictions}
        left_out = sum(1 for item_id in items.ids() if item_id not in answered)
        items = items.select(item_id for item_id in items.ids() if item_id in answered)
    started = time.monotonic()
    # each score goes to the metrics and (with --out) to a file as it completes: none is kept
    aggregation = evaluator.aggregation(seed=args.seed, order=items.ids())
    with _SpilledScores(workdir, items.ids()) if args.out else contextlib.nullcontext() as spilled:
        scored = 0
        try:
            for score in score_items(evaluator, items, predictions, concurrency=args.concurrency):
                aggregation.add(score)
                if spilled is not None:
                    spilled.add(score)
                scored += 1
            metrics = aggregation.metrics()
        except CoreInfrastructureError as exc:  # the sandbox or the judge, not the predictions
            raise InfrastructureError(f"scoring stopped: {exc}") from None
        elapsed = time.monotonic() - started
        print(
            f"{benchmark_name(args.benchmark)}: {scored} item(s), {len(predictions)} prediction(s), {elapsed:.1f}s"
            + (f" ({left_out} item(s) without predictions left out: --allow-missing)" if left_out else "")
            + (f", judged by {judge_label}" if judge_label else "")
        )
        print(format_table(evaluator, metrics))
        if spilled is not None:
            try:
                environment = evaluator.environment()
            except Exception as exc:  # noqa: BLE001 - versions are informative; never lose the scores
                environment = {"error": f"{type(exc).__name__}: {exc}"}
            if judge_label:
                environment["judge"] = judge_label
            head = {
                "benchmark": args.benchmark,
                "evaluator_version": evaluator_version(args.benchmark),
                "settings": settings,
                "seed": args.seed,
                "environment": environment,
                "metrics": [m.to_dict() for m in metrics],
            }
            try:
                _write_result(Path(args.out), head, spilled.in_order())
            except OSError as exc:
                raise UsageError(f"{args.out}: cannot be written ({exc.strerror})") from None
            print(f"wrote {args.out}")
    return 0


def _judge(args: argparse.Namespace) -> tuple[Judge | None, str]:
    """The judge of ``--judge`` for a benchmark with a judge role (as a worker builds the one of
    LEADERBOARD_JUDGES), and its label; (None, "") for a benchmark that needs none."""
    try:
        judging = evaluator_for(args.benchmark).judging()
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    if judging is None:
        if args.judge:
            raise UsageError(f"benchmark '{args.benchmark}' is not scored by a judge: leave out --judge")
        return None, ""
    if not args.judge:
        raise UsageError(
            f"benchmark '{args.benchmark}' needs a judge: pass --judge BASE_URL,MODEL[,API_KEY_ENV] "
            "(any OpenAI-compatible server, e.g. http://127.0.0.1:8001/v1,my-judge)"
        )
    parts = [part.strip() for part in args.judge.split(",")]
    if len(parts) not in (2, 3) or not parts[0].startswith(("http://", "https://")) or not parts[1]:
        raise UsageError(f"--judge {args.judge!r}: expected BASE_URL,MODEL[,API_KEY_ENV] with an http(s) base URL")
    api_key = ""
    if len(parts) == 3:
        api_key = os.environ.get(parts[2], "")
        if not api_key:
            raise UsageError(f"--judge: the environment variable {parts[2]} holding the judge's API key is not set")
    if args.judge_concurrency < 1:
        raise UsageError("--judge-concurrency must be at least 1")
    from evaluators.llm.client import ChatClient
    from evaluators.llm.judges import Judge
    from evaluators.llm.types import Endpoint, JudgeSpec

    spec = JudgeSpec(
        name=parts[1],
        revision=args.judge_revision,
        prompt_version=args.judge_prompt_version,
        endpoint=Endpoint(parts[0], parts[1], api_key),
    )
    client = ChatClient(Endpoint(parts[0], parts[1], api_key), max_concurrency=args.judge_concurrency)
    return Judge(spec, client, concurrency=args.judge_concurrency), spec.label


def cmd_items(args: argparse.Namespace) -> int:
    evaluator = _evaluator(args.benchmark, _parse_settings(args.setting or []))
    release = Path(args.release)
    if not release.exists():
        raise UsageError(f"{release}: no such file or directory")
    try:
        media = DirectoryMedia(Path(args.media)) if args.media else None
        count = write_items(evaluator.import_release(release, media=media), Path(args.out))
    except DatasetError as exc:
        raise UsageError(f"{release}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"{args.out}: cannot be written ({exc.strerror})") from None
    print(f"wrote {count} item(s) to {args.out}" + (f"; their media are in {args.media}" if args.media else ""))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    for key in registered_keys():
        try:
            evaluator = evaluator_for(key)
            print(f"{key}\t{benchmark_name(key)}\t{evaluator.generation().modality}")
        except Exception as exc:  # noqa: BLE001 - one broken package must not hide the others
            print(f"{key}\t(unavailable: {type(exc).__name__}: {exc})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluators", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score a predictions file")
    score.add_argument("--benchmark", required=True)
    score.add_argument("--dataset", required=True, help="release file or directory, or normalized items file (.jsonl)")
    score.add_argument("--predictions", required=True)
    score.add_argument("--concurrency", type=int, default=2)
    score.add_argument("--setting", action="append", metavar="KEY=VALUE", help="evaluator setting (repeatable)")
    score.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    score.add_argument(
        "--allow-missing",
        action="store_true",
        help="score only the items that have predictions (without it, every item of the dataset "
        "needs one, as on the site)",
    )
    score.add_argument("--out", help="write item scores and metrics as JSON")
    score.add_argument(
        "--judge",
        metavar="BASE_URL,MODEL[,API_KEY_ENV]",
        help="the judge of a judged benchmark: an OpenAI-compatible server and model, and the "
        "environment variable holding its API key",
    )
    score.add_argument("--judge-revision", default="unpinned", help="the judge model's revision, as a page names it")
    score.add_argument("--judge-prompt-version", default="v1", help="the judge prompts' version (default v1)")
    score.add_argument("--judge-concurrency", type=int, default=8, help="judge calls in flight (default 8)")
    score.set_defaults(func=cmd_score)
    items = sub.add_parser("items", help="import a release into a normalized items file")
    items.add_argument("--benchmark", required=True)
    items.add_argument("--release", required=True)
    items.add_argument("--out", required=True)
    items.add_argument(
        "--media", metavar="DIR", help="keep the release's images here, by content hash (default: hash only)"
    )
    items.add_argument("--setting", action="append", metavar="KEY=VALUE")
    items.set_defaults(func=cmd_items)
    lister = sub.add_parser("list", help="list registered benchmarks")
    lister.set_defaults(func=cmd_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except InfrastructureError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
