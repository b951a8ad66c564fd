"""The arena's ratings task at scale (issue 35 point 4, issue 47 point 3): generated votes in Postgres
(100 models, both style feature sets stored per side as the site stores them, 5 intents, 2 languages;
made by SQL on the server, no dataset downloaded), grown from the smallest size to the largest, and at
each size, each in a fresh process of its own, in this order:

* ``plain``: a plain psycopg read of the same rows as the task's read used to fetch them (the query of
  the previous ``vote_table``: ids, winner, propensity, both feature objects, intent, language, intent
  method), through a server-side cursor, every row fetched and dropped: the baseline;
* ``read``: ``vote_table()`` (one binary COPY into typed arrays, ``vote_copy``);
* ``task``: ``ratings_compute(force=True)`` with no kept rows: the votes read into arrays once, raw
  and style-controlled ratings with 100 bootstrap rounds for all votes and each intent and language
  (16 snapshots), stored; the rows kept on disk for the next run;
* ``vote``: one more vote added (one battle and its vote, by SQL), then ``ratings_compute()`` again:
  the kept rows checked (an index count of the votes up to the highest kept id), the one new vote read
  and appended, all refitted, each board's fit started from its kept one (``rate(start=...)``).

Time (the read and the whole), peak RSS (``ru_maxrss``) and the RSS after Django's set-up, per mode,
with the load average before and after each. Results in bench/results/ratings_task.json and .md.

The vote downloads that the task writes first (``exports.files_write``, which streams the released rows:
``tests/arena/test_export_files.py`` bounds its memory) are left out here (replaced by a no-op in the
measuring process): this bench measures the ratings. The bench database's secondary indexes on the
battles and votes are dropped before the votes are generated (it is generated faster; no read here
uses them).

    .venv/bin/python bench/bench_ratings_task.py               (sizes 1000000,5000000)
    BENCH_SIZES=20000,40000 .venv/bin/python bench/bench_ratings_task.py
    BENCH_KEEP=1: keep the database of an earlier run and grow it from the votes it has
    BENCH_GROW=copy: grow by copies of the votes there (grow_by_copies), not by generating more
    BENCH_MODES=plain,read,task,vote: which measurements (default all; "none": only grow the votes)
    BENCH_DATABASE=name: the database (default leaderboard_bench_ratings_task)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import recreate_database, results_dir

#: the bench database (BENCH_DATABASE names another, e.g. a helper session's own)
DB = os.environ.get("BENCH_DATABASE", "leaderboard_bench_ratings_task")
SIZES = [int(s) for s in os.environ.get("BENCH_SIZES", "1000000,5000000").split(",")]
MODELS = 100
INTENTS = ("Factual Lookup", "Guidance", "Analysis", "Recommendation", "Creative")
BATCH = 500_000
MODES = [m for m in os.environ.get("BENCH_MODES", "plain,read,task,vote").split(",") if m and m != "none"]
#: distinct feature objects per side, drawn from at random (the database stores them per battle all the same)
TEMPLATES = 4096


def env() -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB}",
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
        "LEADERBOARD_VAR_DIR": str(REPO / "var" / "bench-ratings-task" / DB),
        "CELERY_BROKER_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3"),
        "DJANGO_DEBUG": "0",
        "LEADERBOARD_LOG_LEVEL": "WARNING",
        "LEADERBOARD_ARENA_BOOTSTRAP_ROUNDS": "100",
    }


def features_sql() -> str:
    """A jsonb object of every style feature of both definitions (ours and the paper's), as a battle's
    side stores them: counts and 0/1 flags drawn at random."""
    from evaluators.arena.style import ATTRIBUTION_FEATURES, PAPER_STYLE_FEATURES, STYLE_FEATURES

    parts = []
    for name in (*STYLE_FEATURES, *PAPER_STYLE_FEATURES):
        if name in ("length", "paper_response_length"):
            value = "floor(random() * 600)"
        elif name in ("citation_count", "markdown_headers", "markdown_lists", "markdown_bold", "paper_citation_count"):
            value = "floor(random() * 10)"
        elif name in ATTRIBUTION_FEATURES:
            value = "0"
        elif name == "citation_style_standardized":
            value = "(random() < 0.5)::int"
        else:
            value = "(random() < 0.3)::int"
        parts.append(f"'{name}', {value}")
    return f"jsonb_build_object({', '.join(parts)})"


def grow(conn, have: int, want: int, ids: list[int]) -> None:
    """Add battles and their votes up to ``want``: model_b differs from model_a; model i is 4i points
    stronger than model 0 (P(a wins) = 1 / (1 + 10^((b - a) / 100)) by index), 20% ties; each side's
    features one of TEMPLATES objects drawn at random (made once: building a jsonb object per side
    was most of the generating time); cast a day ago (before the public cut)."""
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS bench_features AS SELECT i, {features_sql()} AS f FROM generate_series(0, "
        f"{TEMPLATES - 1}) i"
    )
    intents = "ARRAY[" + ", ".join(f"'{i}'" for i in INTENTS) + "]"
    for lo in range(have + 1, want + 1, BATCH):
        hi = min(want, lo + BATCH - 1)
        conn.execute(
            f"""
            INSERT INTO arena_battle (public_id, swapped, citation_style_a, citation_style_b, propensity,
                                      voter_hash, ip_hash, status, locked, primary_intent, secondary_intent,
                                      languages, features_a, features_b, extra, created_at,
                                      model_a_id, model_b_id, setting)
            SELECT 'bench' || g, false, 'standardized', 'standardized', 1.0 / 4950, 'v' || (g %% 100000), '',
                   'voted', true, ({intents})[1 + g %% 5], '',
                   jsonb_build_array((ARRAY['en', 'de'])[1 + (g / 7) %% 2]), fa.f, fb.f,
                   '{{"intent_method": "rules-v1 (keyword rules, no model)"}}'::jsonb, now() - interval '1 day',
                   (%(ids)s::bigint[])[1 + a],
                   (%(ids)s::bigint[])[1 + (a + 1 + floor(random() * {MODELS - 1})::int) %% {MODELS}], 'search'
            FROM (SELECT g, floor(random() * {MODELS})::int AS a, floor(random() * {TEMPLATES})::int AS ta,
                         floor(random() * {TEMPLATES})::int AS tb
                  FROM generate_series(%(lo)s::bigint, %(hi)s::bigint) g) s
            JOIN bench_features fa ON fa.i = s.ta JOIN bench_features fb ON fb.i = s.tb""",
            {"ids": ids, "lo": lo, "hi": hi},
        )
        conn.execute(
            """
            INSERT INTO arena_vote (winner, turn_count, valid, exclusion_reasons, voter_hash, ip_hash, created_at,
                                    battle_id)
            SELECT CASE WHEN r < 0.15 THEN 'tie' WHEN r < 0.2 THEN 'tie (bothbad)'
                        WHEN random() < 1 / (1 + power(10, (array_position(%(ids)s::bigint[], model_b_id)
                                                            - array_position(%(ids)s::bigint[], model_a_id)) / 100.0))
                        THEN 'model_a' ELSE 'model_b' END,
                   1, true, '[]'::jsonb, voter_hash, '', created_at, id
            FROM (SELECT id, model_a_id, model_b_id, voter_hash, created_at, random() AS r FROM arena_battle
                  WHERE id > (SELECT coalesce(max(battle_id), 0) FROM arena_vote)) s""",
            {"ids": ids},
        )
        conn.commit()
        print(f"  {hi:,} votes", flush=True)
    conn.execute("ANALYZE arena_battle")
    conn.execute("ANALYZE arena_vote")
    conn.commit()


def add_one_vote(conn) -> None:
    """One more battle and its vote (a copy of the last battle's, cast a day ago): the 'vote' mode's."""
    conn.execute(
        "INSERT INTO arena_battle (public_id, "
        + _COPIED
        + ") SELECT 'one-more-' || id, "
        + _COPIED
        + " FROM arena_battle WHERE id = (SELECT max(battle_id) FROM arena_vote)"
    )
    conn.execute(
        "INSERT INTO arena_vote (winner, turn_count, valid, exclusion_reasons, voter_hash, ip_hash, created_at, "
        "battle_id) "
        "SELECT 'model_a', 1, true, '[]'::jsonb, voter_hash, '', created_at, id FROM arena_battle "
        "WHERE id = (SELECT max(id) FROM arena_battle)"
    )
    conn.commit()


def drop_secondary_indexes(conn) -> None:
    """The battles' and votes' indexes other than their primary keys (module doc)."""
    rows = conn.execute(
        "SELECT i.indexrelid::regclass::text, c.conname FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
        "LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid "
        "WHERE t.relname IN ('arena_battle', 'arena_vote') AND NOT i.indisprimary"
    ).fetchall()
    for index, constraint in rows:
        if constraint:
            table = conn.execute(
                "SELECT conrelid::regclass::text FROM pg_constraint WHERE conname = %s", (constraint,)
            ).fetchone()[0]
            conn.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{constraint}" CASCADE')
        else:
            conn.execute(f"DROP INDEX IF EXISTS {index}")
    conn.commit()


#: the battle columns a copy carries over (all but the identity, conv_id and public_id)
_COPIED = (
    "swapped, citation_style_a, citation_style_b, propensity, voter_hash, ip_hash, status, locked, primary_intent, "
    "secondary_intent, languages, features_a, features_b, extra, created_at, model_a_id, model_b_id, setting"
)


def grow_by_copies(conn, have: int, want: int) -> None:
    """Add votes up to ``want`` by copying the first generated battles and their votes (BENCH_GROW=copy):
    faster than generating them (a million copied in about 4 minutes at load 10-13, 400 s generated), the
    same work for the ratings task (the same features and outcomes, repeated)."""
    copy = 0
    while have < want:
        copy += 1
        take = min(
            want - have,
            conn.execute(
                "SELECT count(*) FROM arena_vote v JOIN arena_battle b ON b.id = v.battle_id "
                "WHERE b.public_id NOT LIKE 'copy%%'"
            ).fetchone()[0],
        )
        prefix = f"copy{copy}-"
        conn.execute(
            f"INSERT INTO arena_battle (public_id, {_COPIED}) SELECT %(prefix)s || id, {_COPIED} FROM arena_battle "
            "WHERE public_id NOT LIKE 'copy%%' ORDER BY id LIMIT %(take)s",
            {"prefix": prefix, "take": take},
        )
        conn.execute(
            "INSERT INTO arena_vote (winner, turn_count, valid, exclusion_reasons, voter_hash, ip_hash, created_at, "
            "battle_id) "
            "SELECT v.winner, v.turn_count, v.valid, v.exclusion_reasons, v.voter_hash, v.ip_hash, v.created_at, c.id "
            "FROM arena_battle c JOIN arena_vote v ON v.battle_id = substr(c.public_id, %(skip)s)::bigint "
            "WHERE c.public_id LIKE %(like)s",
            {"skip": len(prefix) + 1, "like": prefix + "%"},
        )
        conn.commit()
        have += take
        print(f"  {have:,} votes (copy {copy})", flush=True)
    conn.execute("ANALYZE arena_battle")
    conn.execute("ANALYZE arena_vote")
    conn.commit()


def plain_read() -> int:
    """The previous ``vote_table``'s query (module doc) through a psycopg server-side cursor, every row
    fetched and dropped; returns the rows."""
    import psycopg
    from django.db.models.fields.json import KeyTextTransform

    from leaderboard.arena.models import Vote

    query = (
        Vote.objects.filter(valid=True, battle__setting="search")
        .order_by("pk")
        .values_list(
            "pk",
            "winner",
            "battle__model_a",
            "battle__model_b",
            "battle__propensity",
            "battle_id",
            "battle__features_a",
            "battle__features_b",
            KeyTextTransform("intent_method", "battle__extra"),
            "battle__conv_id",
            "battle__primary_intent",
            KeyTextTransform("0", "battle__languages"),
        )
        .query
    )
    sql, params = query.sql_with_params()
    rows = 0
    with psycopg.connect(os.environ["DATABASE_URL"]) as conn, conn.cursor(name="plain") as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(5_000):
            rows += len(chunk)
    return rows


def measure(mode: str) -> None:
    """In a fresh process: Django set up, then one of the modes (module doc)."""
    import django

    django.setup()
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    from django.conf import settings

    from leaderboard.arena import exports
    from leaderboard.arena.models import RatingSnapshot, Vote
    from leaderboard.arena.services import rating_starts
    from leaderboard.arena.services import ratings as service

    out: dict[str, object] = {
        "mode": mode,
        "votes": Vote.objects.filter(valid=True).count(),
        "rss_after_setup_mb": base_rss / 1024,
        "style_definition": settings.ARENA_STYLE_DEFINITION,
    }
    start, cpu = time.perf_counter(), time.process_time()
    if mode == "plain":
        out["rows"] = plain_read()
    elif mode == "read":
        out["rows"] = len(service.vote_table().battles)
    else:
        exports.files_write = lambda *args, **kwargs: 0  # type: ignore[assignment]  # not measured here (module doc)
        exports.files_prune = lambda *args, **kwargs: 0  # type: ignore[assignment]
        read = service.vote_table

        def timed_read(**kwargs):  # type: ignore[no-untyped-def]  # the search setting's read is timed (the chat one is empty)
            begin, begin_cpu = time.perf_counter(), time.process_time()
            table = read(**kwargs)
            if "read_s" not in out:
                out["read_s"], out["read_cpu_s"] = time.perf_counter() - begin, time.process_time() - begin_cpu
                out["rows"] = len(table.battles)
            return table

        service.vote_table = timed_read  # type: ignore[assignment]
        if mode == "task":
            shutil.rmtree(rating_starts.vote_cache_dir(), ignore_errors=True)
        RatingSnapshot.objects.all().delete()
        start, cpu = time.perf_counter(), time.process_time()
        out["snapshots"] = service.ratings_compute(force=True)
    out["seconds"], out["cpu_s"] = time.perf_counter() - start, time.process_time() - cpu
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def run_measure(mode: str) -> dict:
    load = os.getloadavg()[0]
    done = subprocess.run(
        [sys.executable, __file__, "--measure", mode], env=env(), capture_output=True, text=True, cwd=REPO
    )
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    found: dict = json.loads(done.stdout.strip().splitlines()[-1])
    found["load_before"], found["load_after"] = round(load, 2), round(os.getloadavg()[0], 2)
    print(json.dumps(found), flush=True)
    return found


def main() -> None:
    import psycopg

    os.environ.update(env())
    keep = os.environ.get("BENCH_KEEP", "") == "1"
    if not keep:
        recreate_database(DB)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], env=env(), cwd=REPO, check=True)
    runs = []
    with psycopg.connect(env()["DATABASE_URL"]) as conn:
        if keep:  # the votes generated by an earlier run: grown from there, its results kept beside the new ones
            earlier = results_dir() / "ratings_task.json"
            if earlier.exists():
                runs += [
                    r
                    for r in json.loads(earlier.read_text())["runs"]
                    if r.get("size") not in SIZES or r["mode"] not in MODES
                ]
            ids = [
                row[0]
                for row in conn.execute("SELECT id FROM arena_arenamodel WHERE organization = 'bench' ORDER BY name")
            ]
            have = conn.execute("SELECT count(*) FROM arena_vote").fetchone()[0]
            return measure_sizes(conn, ids, have, runs)
        conn.execute("DELETE FROM arena_vote")
        drop_secondary_indexes(conn)
        conn.execute(
            "INSERT INTO arena_arenamodel (name, organization, description, responder, enabled, imported, weight, "
            "added_at, "
            "retire_reason, prerelease) "
            f"SELECT 'model-' || lpad(i::text, 3, '0'), 'bench', '', '{{}}'::jsonb, true, true, 1.0, now(), '', false "
            f"FROM generate_series(0, {MODELS - 1}) i"
        )
        ids = [
            row[0] for row in conn.execute("SELECT id FROM arena_arenamodel WHERE organization = 'bench' ORDER BY name")
        ]
        conn.commit()
        measure_sizes(conn, ids, 0, runs)


def measure_sizes(conn, ids: list[int], have: int, runs: list[dict]) -> None:
    """Grow the votes to each size in turn and measure there; results written after every size, so
    that a long run's smaller sizes are kept if it is stopped."""
    for size in sorted(SIZES):
        if size + 100 < have:  # (a size measured before holds the votes its 'vote' mode added, one a run)
            continue
        start = time.perf_counter()
        copies = os.environ.get("BENCH_GROW") == "copy" and have > 0
        if copies:
            grow_by_copies(conn, have, size)
        else:
            grow(conn, have, size, ids)
        print(
            f"{size:,} votes {'copied' if copies else 'generated'} in {time.perf_counter() - start:.0f} s", flush=True
        )
        have = size
        for mode in MODES:
            if mode == "vote":
                add_one_vote(conn)
                have += 1
            runs.append({**run_measure(mode), "size": size, "grown_by": "copies" if copies else "generated"})
            write(runs)


def write(runs: list[dict]) -> None:
    results = results_dir()
    results.mkdir(parents=True, exist_ok=True)
    out = {
        "runs": runs,
        "cpus": os.cpu_count(),
        "command": " ".join(["bench/bench_ratings_task.py", *sys.argv[1:]]),
        "env": {k: v for k, v in os.environ.items() if k.startswith("BENCH_")},
        "note": "one run per mode and size, each in a fresh process; exports.files_write left out (module doc)",
    }
    (results / "ratings_task.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [
        "# The arena's ratings task at scale",
        "",
        f"Generated votes in Postgres: {MODELS} models, both style feature sets stored per side, 5 intents, 2 "
        f"languages; the "
        "site's default style definition fitted. Per size, each in a fresh process: `plain` (the previous read's "
        "query through a "
        "psycopg server-side cursor, rows dropped), `read` (`vote_table()`: one binary COPY into typed arrays), `task` "
        "(`ratings_compute(force=True)` with no kept rows: the read plus raw and style-controlled ratings with 100 "
        "bootstrap "
        "rounds for all votes and each intent and language, 16 snapshots stored; the vote downloads left out), `vote` "
        "(one vote "
        f"added, then the task again from the kept rows). {os.cpu_count()} CPUs shared with other work: the loads are "
        f"given.",
        "",
        "| votes | mode | wall s | CPU s (this process) | read s (CPU s) | x plain | peak RSS MB | RSS after set-up "
        "MB | "
        "peak - set-up, bytes a vote | snapshots | load before / after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    plain = {r["size"]: r["seconds"] for r in runs if r["mode"] == "plain" and "size" in r}
    for r in runs:
        if "size" not in r:
            continue
        per_vote = (r["peak_rss_mb"] - r["rss_after_setup_mb"]) * 1024 * 1024 / max(r["votes"], 1)
        read = f"{r['read_s']:.1f} ({r['read_cpu_s']:.1f})" if "read_s" in r else ""
        ratio = f"{r['seconds'] / plain[r['size']]:.2f}" if r["size"] in plain else ""
        lines.append(
            f"| {r['votes']:,} | {r['style_definition']} {r['mode']} | {r['seconds']:.1f} | {r['cpu_s']:.1f} | {read} "
            f"| {ratio} | "
            f"{r['peak_rss_mb']:.0f} | {r['rss_after_setup_mb']:.0f} | {per_vote:.0f} | {r.get('snapshots', '')} | "
            f"{r['load_before']} / {r['load_after']} |"
        )
    lines.append("")
    (results / "ratings_task.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        measure(sys.argv[2])
    else:
        main()
