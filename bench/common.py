"""What the benchmarks share: a fresh Postgres database per bench, and the percentile they report."""
from __future__ import annotations

SERVER = "postgres://postgres@127.0.0.1:5432"


def recreate_database(name: str) -> str:
    """Drop and create ``name`` on this machine's Postgres; returns its URL."""
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return f"{SERVER}/{name}"


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0..1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
