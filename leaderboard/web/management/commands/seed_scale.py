"""Fill Postgres with internet-scale data for the page benchmarks (``bench/bench_site_scale.py``): arena
contestants with millions of votes, catalog models with runs on every scored board, their scores and
leaderboard rows, and item results with the dataset's own slices (the date window's input).

Deterministic: every value is drawn from one seeded generator (``--seed``), in a fixed order, so two
databases seeded with the same options hold the same rows (ids aside). The large tables (battles, votes,
submissions, runs, scores, item results) are written with COPY in chunks, a progress line per chunk; the
leaderboard rows and the boards' changelogs are then filed by the site's own rebuild
(``leaderboards_rebuild``), and every table touched is analysed.

What is made, with the default scale (each count is an option, so that tests seed a handful):

- ``--arena-models`` 200 contestants (imported: never drawn), the first ``--linked`` of them linked to a
  catalog model; ``--votes`` 5,000,000 voted battles between them over the past year (Bradley-Terry
  outcomes from drawn strengths, 20% ties, 10% both bad, 3% not counted), 95% in the Search Arena and 5%
  in plain chat, with the paper's length and citation features, an intent and a language; no turns (no
  prompt text is stored: the pages read the votes and the rating snapshots);
- ``--models`` 1,000 public catalog models owned by one user, ``scale-seed``;
- ``--runs`` 10,000 succeeded runs, one submission each: run k is model k mod models on the scored board
  (k div models) mod boards, so a model has one run per board and more where runs outnumber
  models x boards (the older run superseded on the board); each with a score per headline metric and per
  value of the board's first slice dimension;
- ``--items`` 100,000 item results, spread evenly over the runs of the boards with a date window
  (Multi-LCB), each an item of the current dataset with its slices and a pass@1 of 0 or 1.

The command refuses when the user ``scale-seed`` exists (a seeded database: seed a fresh one), when
the database is not PostgreSQL (COPY) and when no scored board has a current dataset (run
``load_samples`` first). The arena's ratings are not fitted here: ``--ratings`` runs the ratings task
(``ratings_compute``) once the votes are in, as the worker would.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction
from django.utils import timezone

SEED_USER = "scale-seed"
CHUNK = 200_000
#: the languages a seeded battle is in (its first language), by share
LANGUAGES = (("en", 0.6), ("zh", 0.1), ("es", 0.08), ("de", 0.06), ("ru", 0.06), ("ja", 0.05), ("fr", 0.05))
#: of all votes: ties, both bad, and those not counted
TIE, BOTH_BAD, NOT_COUNTED = 0.2, 0.1, 0.03
CHAT_SHARE = 0.05
SPAN = dt.timedelta(days=365)
#: a vote not counted: its exclusion reasons
EXCLUDED = json.dumps(["staff"])
#: a seeded run's columns, and the values every seeded run shares (a succeeded run scored from a file)
RUN_FIXED: dict[str, object] = {
    "status": "succeeded",
    "failure_kind": "",
    "failure_message": "",
    "attempt": 1,
    "max_attempts": 3,
    "worker": "seed",
    "environment": "{}",
    "log": "",
    "queue": "cpu",
    "evaluator_settings": "{}",
    "phase": "",
    "predictions_key": "",
    "quota_charged": "t",
    "progress_started_done": 0,
    "cost": "{}",
}
RUN_COLUMNS = (
    "id",
    "submission_id",
    "benchmark_id",
    "dataset_version_id",
    "queued_at",
    "started_at",
    "finished_at",
    "created_at",
    "evaluator_version",
    "items_total",
    "items_done",
    "evaluator_key",
    *RUN_FIXED,
)


def _copy(table: str, columns: Sequence[str], lines: Iterator[str]) -> None:
    """COPY the tab-separated ``lines`` (text format, ``\\N`` for null) into ``table``."""
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for line in lines:
            copy.write(line)


def _next_id(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}")
        return int(cursor.fetchone()[0])


def _sync_sequence(table: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), GREATEST((SELECT MAX(id) FROM {table}), 1))"
        )


def _stamp(base: dt.datetime, seconds: np.ndarray) -> list[str]:
    return [(base + dt.timedelta(seconds=int(s))).isoformat() for s in seconds.tolist()]


#: the columns the scale seed writes of a battle and of its vote (COPY order)
BATTLE_COLUMNS = (
    "id",
    "public_id",
    "model_a_id",
    "model_b_id",
    "swapped",
    "setting",
    "citation_style_a",
    "citation_style_b",
    "propensity",
    "voter_hash",
    "ip_hash",
    "status",
    "locked",
    "primary_intent",
    "secondary_intent",
    "languages",
    "features_a",
    "features_b",
    "extra",
    "created_at",
)
VOTE_COLUMNS = (
    "battle_id",
    "winner",
    "turn_count",
    "valid",
    "exclusion_reasons",
    "voter_hash",
    "ip_hash",
    "created_at",
)


def _feature_objects(lengths: np.ndarray, citations: np.ndarray) -> list[str]:
    """One side's style features as the site stores them (the paper's names and ours), as JSON text."""
    return [
        json.dumps(
            {
                "paper_response_length": int(length),
                "paper_citation_count": int(cited),
                "length": int(length),
                "citation_count": int(cited),
            }
        )
        for length, cited in zip(lengths.tolist(), citations.tolist())
    ]


class Command(BaseCommand):
    help = (
        "Fill the database with internet-scale arena votes, models, runs and item results (deterministic; refuses "
        "a seeded database)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--votes", type=int, default=5_000_000)
        parser.add_argument("--arena-models", type=int, default=200)
        parser.add_argument(
            "--linked", type=int, default=200, help="arena contestants linked to a catalog model (the first ones)"
        )
        parser.add_argument("--models", type=int, default=1_000)
        parser.add_argument("--runs", type=int, default=10_000)
        parser.add_argument("--items", type=int, default=100_000)
        parser.add_argument("--seed", type=int, default=47)
        parser.add_argument(
            "--ratings", action="store_true", help="fit the arena's ratings once the votes are in (the ratings task)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("seed_scale writes with COPY: it needs PostgreSQL (DATABASE_URL)")
        if User.objects.filter(username=SEED_USER).exists():
            raise CommandError(f"this database is seeded already (user {SEED_USER!r} exists): seed a fresh database")
        if min(options["votes"], options["arena_models"], options["models"], options["runs"], options["items"]) < 0:
            raise CommandError("counts cannot be negative")
        if options["votes"] and options["arena_models"] < 2:
            raise CommandError("--votes needs at least two --arena-models")
        if options["runs"] and not options["models"]:
            raise CommandError("--runs needs --models")
        self.rng = np.random.default_rng(options["seed"])
        self.now = timezone.now().replace(microsecond=0)
        self.started = time.monotonic()
        with transaction.atomic():
            owner = User.objects.create_user(SEED_USER, password=None)
            model_ids = self._models(owner, options["models"])
            arena_ids = self._arena_models(options["arena_models"], model_ids[: max(0, options["linked"])])
            self._votes(arena_ids, options["votes"])
            runs = self._runs(owner, model_ids, options["runs"])
            self._items(runs, options["items"])
        self._progress("leaderboard rows (leaderboards_rebuild)")
        from leaderboard.chains.board_rows import leaderboards_rebuild

        rows = leaderboards_rebuild()
        with connection.cursor() as cursor:
            for table in (
                "arena_battle",
                "arena_vote",
                "catalog_model",
                "submissions_submission",
                "submissions_evaluationrun",
                "submissions_score",
                "submissions_itemresult",
                "submissions_leaderboardentry",
            ):
                cursor.execute(f"ANALYZE {table}")
        from leaderboard import pagecache

        pagecache.new_generation()
        self._progress(f"{rows} leaderboard rows")
        if options["ratings"] and options["votes"]:
            from leaderboard.arena.services.ratings import ratings_compute

            self._progress("fitting the arena's ratings (ratings_compute)")
            self._progress(f"{ratings_compute(force=True)} rating snapshots")
        self.stdout.write(self.style.SUCCESS(f"seeded in {time.monotonic() - self.started:.0f} s"))

    def _progress(self, text: str) -> None:
        self.stdout.write(f"[{time.monotonic() - self.started:7.1f} s] {text}")
        self.stdout.flush()

    # --- catalog --------------------------------------------------------------------------------

    def _models(self, owner: User, count: int) -> list[int]:
        from leaderboard.catalog.models import Model

        releases = self.rng.integers(0, 3 * 365, size=count)
        start = dt.date(2023, 1, 1)
        Model.objects.bulk_create(
            [
                Model(
                    name=f"scale-model-{n:05d}",
                    slug=f"scale-model-{n:05d}",
                    organization=f"Lab {n % 37}",
                    owner=owner,
                    release_date=start + dt.timedelta(days=int(days)),
                    parameters=int(1e9) * (1 + n % 70),
                )
                for n, days in enumerate(releases.tolist())
            ],
            batch_size=2000,
        )
        ids = list(Model.objects.filter(owner=owner).order_by("name").values_list("pk", flat=True))
        self._progress(f"{len(ids)} catalog models")
        return ids

    # --- arena ----------------------------------------------------------------------------------

    def _arena_models(self, count: int, linked: list[int]) -> list[int]:
        from leaderboard.arena.models import ArenaModel

        made = ArenaModel.objects.bulk_create(
            [
                ArenaModel(
                    name=f"scale-arena-{n:04d}",
                    organization=f"Provider {n % 23}",
                    imported=True,
                    enabled=False,
                    catalog_model_id=linked[n] if n < len(linked) else None,
                )
                for n in range(count)
            ]
        )
        self._progress(f"{len(made)} arena contestants")
        return [m.pk for m in made]

    def _votes(self, arena_ids: list[int], count: int) -> None:
        """``count`` voted battles and their votes, a chunk at a time: the battles' ids are given here
        (the table's next ids), so that each vote names its battle without reading it back."""
        if not count:
            return
        strengths = self.rng.normal(0.0, 0.8, size=len(arena_ids))
        ids = np.array(arena_ids)
        first = _next_id("arena_battle")
        base = self.now - SPAN - dt.timedelta(days=2)  # every vote older than the public cut
        intents = [i.replace("\t", " ") for i in _intents()]
        codes, shares = zip(*LANGUAGES)
        languages = [json.dumps([code]) for code in codes]
        for start in range(0, count, CHUNK):
            n = min(CHUNK, count - start)
            a = self.rng.integers(0, len(ids), size=n)
            b = (a + self.rng.integers(1, len(ids), size=n)) % len(ids)
            p_a = 1.0 / (1.0 + np.exp(strengths[b] - strengths[a]))
            winner = self._winners(p_a)
            valid = self.rng.random(n) >= NOT_COUNTED
            setting = np.where(self.rng.random(n) < CHAT_SHARE, "chat", "search")
            intent = self.rng.integers(0, len(intents), size=n)
            language = self.rng.choice(len(codes), size=n, p=np.array(shares) / sum(shares))
            voter = self.rng.integers(0, max(1, count // 20), size=n)
            seconds = (start + np.arange(n)) * int(SPAN.total_seconds()) // count  # in vote order over the year
            lengths = self.rng.integers(50, 2000, size=(2, n))
            citations = np.where(setting == "chat", 0, self.rng.integers(0, 12, size=(2, n)))
            created = _stamp(base, seconds)
            battle_ids = range(first + start, first + start + n)
            hashes = [f"{v:064x}" for v in voter.tolist()]
            features = [_feature_objects(lengths[side], citations[side]) for side in (0, 1)]
            _copy(
                "arena_battle",
                BATTLE_COLUMNS,
                (
                    f"{bid}\tscale{bid:012d}\t{ids[x]}\t{ids[y]}\t{'t' if x > y else 'f'}\t{st}\t"
                    f"standardized\tstandardized\t\\N\t{h}\t{h}\t"
                    f"voted\tt\t{intents[i]}\t\t{languages[lang]}\t{fa}\t{fb}\t{{}}\t{c}\n"
                    for bid, x, y, st, h, i, lang, fa, fb, c in zip(
                        battle_ids,
                        a.tolist(),
                        b.tolist(),
                        setting.tolist(),
                        hashes,
                        intent.tolist(),
                        language.tolist(),
                        features[0],
                        features[1],
                        created,
                    )
                ),
            )
            _copy(
                "arena_vote",
                VOTE_COLUMNS,
                (
                    f"{bid}\t{w}\t1\t{'t' if ok else 'f'}\t{'[]' if ok else EXCLUDED}\t{h}\t{h}\t{c}\n"
                    for bid, w, ok, h, c in zip(battle_ids, winner.tolist(), valid.tolist(), hashes, created)
                ),
            )
            self._progress(f"votes {start + n:,} / {count:,}")
        _sync_sequence("arena_battle")

    def _winners(self, p_a: np.ndarray) -> np.ndarray:
        """Each vote's outcome: a tie or a both-bad tie at their shares, else model A with ``p_a``."""
        draw = self.rng.random(len(p_a))
        decided = np.where(self.rng.random(len(p_a)) < p_a, "model_a", "model_b")
        return np.where(draw < TIE, "tie", np.where(draw < TIE + BOTH_BAD, "tie (bothbad)", decided))

    # --- runs -----------------------------------------------------------------------------------

    def _runs(self, owner: User, model_ids: list[int], count: int) -> list[tuple[int, Any, Any]]:
        """``count`` succeeded runs with their submissions and scores; returns (run id, benchmark, dataset) of each."""
        from evaluators.core import evaluator_version
        from leaderboard.catalog.models import Benchmark

        if not count:
            return []
        boards = [
            (b, b.dataset_versions.get(is_current=True))
            for b in Benchmark.objects.exclude(evaluator_key="").order_by("position", "pk")
            if b.dataset_versions.filter(is_current=True).exists() and b.metric_columns
        ]
        if not boards:
            raise CommandError("no scored board has a current dataset: run load_samples first")
        versions = {b.pk: evaluator_version(b.evaluator_key) for b, _ in boards}
        first_submission, first_run = _next_id("submissions_submission"), _next_id("submissions_evaluationrun")
        seconds = np.arange(count) * int(SPAN.total_seconds()) // count
        finished = _stamp(self.now - SPAN, seconds)
        skill = self.rng.random(len(model_ids))
        _copy(
            "submissions_submission",
            (
                "id",
                "model_id",
                "owner_id",
                "is_public",
                "predictions_key",
                "predictions_sha256",
                "predictions_count",
                "generation_settings",
                "note",
                "created_at",
            ),
            (
                f"{first_submission + k}\t{model_ids[k % len(model_ids)]}\t{owner.pk}\tt\t\t\t0\t{{}}\t"
                f"seeded\t{finished[k]}\n"
                for k in range(count)
            ),
        )
        made = []
        run_lines, score_lines = [], []
        for k in range(count):
            benchmark, dataset = boards[(k // len(model_ids)) % len(boards)]
            run_id = first_run + k
            made.append((run_id, benchmark, dataset))
            items = dataset.item_count
            run = {
                **RUN_FIXED,
                "id": run_id,
                "submission_id": first_submission + k,
                "benchmark_id": benchmark.pk,
                "dataset_version_id": dataset.pk,
                "queued_at": finished[k],
                "started_at": finished[k],
                "finished_at": finished[k],
                "created_at": finished[k],
                "evaluator_version": versions[benchmark.pk],
                "items_total": items,
                "items_done": items,
                "evaluator_key": benchmark.evaluator_key,
            }
            run_lines.append("\t".join(str(run[c]) for c in RUN_COLUMNS) + "\n")
            level = skill[k % len(model_ids)]
            dimension = benchmark.slice_dimensions[0] if benchmark.slice_dimensions else None
            primary = benchmark.primary_metric
            cells = [(c["key"], "") for c in benchmark.metric_columns]
            if dimension and primary:
                cells += [(primary["key"], f"{dimension['key']}={value}") for value in dimension["values"]]
            values = self.rng.random(len(cells)) * 0.4 + 0.6 * level
            for (key, s_key), value in zip(cells, values.tolist()):
                width = 0.02 + 0.05 * (1 - value)
                score_lines.append(
                    f"{run_id}\t{key}\t{s_key}\t{value:.6f}\t{value - width:.6f}\t{value + width:.6f}\t{items}\n"
                )
        _copy("submissions_evaluationrun", RUN_COLUMNS, iter(run_lines))
        _copy("submissions_score", ("run_id", "key", "slice_key", "value", "ci_low", "ci_high", "n"), iter(score_lines))
        _sync_sequence("submissions_submission")
        _sync_sequence("submissions_evaluationrun")
        self._progress(f"{count:,} runs on {len(boards)} boards, {len(score_lines):,} scores")
        return made

    def _items(self, runs: list[tuple[int, Any, Any]], count: int) -> None:
        """``count`` item results over the runs of the boards with a date window, each of the dataset's own items."""
        from leaderboard.boards.selectors import date_slice_of
        from leaderboard.catalog.services import dataset_items

        windowed = [(run_id, dataset) for run_id, benchmark, dataset in runs if date_slice_of(benchmark)]
        if not count:
            return
        if not windowed:
            raise CommandError("--items needs runs on a board with a date window (Multi-LCB)")
        items_of: dict[int, list[tuple[str, str]]] = {}
        for _, dataset in windowed:
            if dataset.pk not in items_of:
                items_of[dataset.pk] = [(item.id, json.dumps(item.slices)) for item in dataset_items(dataset)]
        per_run, extra = divmod(count, len(windowed))
        written = 0
        lines: list[str] = []
        for n, (run_id, dataset) in enumerate(windowed):
            items = items_of[dataset.pk]
            take = per_run + (n < extra)
            if take > len(items):
                raise CommandError(
                    f"{take} item results a run, but its dataset has {len(items)} items: seed fewer --items or more "
                    f"--runs"
                )
            chosen = np.sort(self.rng.choice(len(items), size=take, replace=False))
            passed = self.rng.random(take) < 0.5
            for index, ok in zip(chosen.tolist(), passed.tolist()):
                item_id, slices = items[index]
                lines.append(
                    f'{run_id}\t{_text(item_id)}\t{_text(slices)}\t{{"pass@1": {1.0 if ok else 0.0}}}\t{{}}\t\t'
                    f"{1.0 if ok else 0.0}\t{'t' if ok else 'f'}\n"
                )
            if len(lines) >= CHUNK or n == len(windowed) - 1:
                _copy(
                    "submissions_itemresult",
                    ("run_id", "item_id", "slices", "scores", "detail", "error", "primary_score", "passed"),
                    iter(lines),
                )
                written += len(lines)
                lines = []
                self._progress(f"item results {written:,} / {count:,}")


def _text(value: str) -> str:
    """A value for COPY's text format."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _intents() -> tuple[str, ...]:
    from evaluators.arena.intent import INTENTS

    return INTENTS
