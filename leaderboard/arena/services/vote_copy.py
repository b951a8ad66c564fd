"""The counted votes read straight into typed arrays: one ``COPY (SELECT ...) TO STDOUT (FORMAT BINARY)``
whose every column has a fixed width, so that a chunk of its bytes is a numpy structured array
(``np.frombuffer``) and no Python object is made per vote.

What the ratings need per vote comes out of the server already typed: the vote's id, both models' ids
(int32), the outcome's code (int16; -1 for a winner that is not one of ``OUTCOMES``), the propensity
(float8; 0 when not recorded), the codes of the battle's intent, first language and intent method
(int16; -1 for none: strings are replaced by their index in the label lists that a first pass over the
same votes, grouped, returns), and each style feature of each side as float32 (read from the stored JSON
by Postgres, in C: ``(features ->> name)::float4``, 0 when missing). Float32 holds every integer-valued
feature (lengths, counts, 0/1 flags) exactly, so the covariates the fit builds from them in float64 are
the ones it built from float64 features.

:func:`read_votes` returns the rows as :class:`VoteRows` (column arrays), in vote order; the caller
(``ratings.vote_table``) turns them into the rating code's arrays. :func:`checksum_rows` is the same
selection's checksum (count, sum of ids, sum of a per-row hash of everything read), with which a cache
of earlier rows is checked before new votes are appended to it (``ratings.vote_table(cached=True)``).
"""
from __future__ import annotations

from dataclasses import dataclass
import datetime as dt
from typing import Any, Iterator

import numpy as np
from django.db import connection

from leaderboard.arena.models import Battle, Vote

#: the battle's intent method as the ratings count it: the recorded one, else imported or not recorded
IMPORTED_INTENT_METHOD = "as released with the imported dataset"
_METHOD_SQL = ("CASE WHEN coalesce(b.extra ->> 'intent_method', '') <> '' THEN b.extra ->> 'intent_method' "
               f"WHEN coalesce(b.conv_id, '') <> '' THEN '{IMPORTED_INTENT_METHOD}' ELSE 'not recorded' END")
#: the vote groups besides all votes: filter key -> the battle's value as SQL (empty or NULL: none)
GROUP_SQL: dict[str, str] = {"intent": "b.primary_intent", "language": "b.languages ->> 0"}
#: bytes of COPY data turned into arrays at a time (about 40,000 votes with 2 x 13 features)
CHUNK_BYTES = 8 << 20
_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


def _field(dtype: str) -> list[tuple[str, str]]:
    """A binary COPY field: its length (int32), then its value, both big-endian."""
    return [("len", ">i4"), ("v", dtype)]


@dataclass
class VoteRows:
    """Votes as column arrays, in vote order: ``a``/``b`` are ArenaModel ids, ``outcome`` indexes
    ``OUTCOMES``, ``codes[key]`` index ``labels[key]`` (-1: none)
    for each key of ``GROUP_SQL`` and "method", ``fa``/``fb`` the style features (float32)."""

    vote: np.ndarray
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    #: the inverse propensity (1 where it was not recorded)
    weight: np.ndarray
    codes: dict[str, np.ndarray]
    labels: dict[str, list[str]]
    fa: np.ndarray
    fb: np.ndarray
    #: sum of the per-row hashes (mod 2**64, as int64): see :func:`checksum_rows`
    digest: int = 0

    def __len__(self) -> int:
        return len(self.vote)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every per-vote array by name (for storing and for joining two sets of rows)."""
        return {"vote": self.vote, "a": self.a, "b": self.b, "outcome": self.outcome, "weight": self.weight,
                "fa": self.fa, "fb": self.fb, **{f"code_{key}": codes for key, codes in self.codes.items()}}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], labels: dict[str, list[str]], digest: int = 0) -> VoteRows:
        return cls(vote=arrays["vote"], a=arrays["a"], b=arrays["b"], outcome=arrays["outcome"], weight=arrays["weight"],
                   codes={key: arrays[f"code_{key}"] for key in labels}, labels=labels, fa=arrays["fa"], fb=arrays["fb"],
                   digest=digest)


def selection(setting: str, cut: dt.datetime | None, *, after: int | None = None, old_cut: dt.datetime | None = None,
              upto: int | None = None) -> tuple[str, dict[str, Any]]:
    """FROM and WHERE of the valid votes of ``setting`` closed under ``cut`` (imported, or cast before it;
    None: all), and, for an update of cached rows, not among those cached: not (id <= ``after`` and
    closed under ``old_cut``); ``upto``: ids up to it only."""
    sql = (f"FROM {Vote._meta.db_table} v JOIN {Battle._meta.db_table} b ON b.id = v.battle_id "
           "WHERE v.valid AND b.setting = %(setting)s")
    params: dict[str, Any] = {"setting": setting}
    if cut is not None:
        sql += " AND (b.conv_id IS NOT NULL OR v.created_at < %(cut)s)"
        params["cut"] = cut
    if after is not None:
        params["after"] = after
        if old_cut is None:
            sql += " AND v.id > %(after)s"
        else:
            sql += " AND (v.id > %(after)s OR (b.conv_id IS NULL AND v.created_at >= %(old_cut)s))"
            params["old_cut"] = old_cut
    if upto is not None:
        sql += " AND v.id <= %(upto)s"
        params["upto"] = upto
    return sql, params


def _row_hash_sql(style_names: tuple[str, ...]) -> str:
    """A 64-bit hash of everything read for a vote (a change to any of it changes the checksum)."""
    parts = ["v.id::text", "v.winner", "b.model_a_id::text", "b.model_b_id::text", "coalesce(b.propensity, 0)::text",
             f"coalesce({GROUP_SQL['intent']}, '')", f"coalesce({GROUP_SQL['language']}, '')", _METHOD_SQL,
             *(f"coalesce(b.features_{side} ->> '{name}', '')" for side in "ab" for name in style_names)]
    return f"hashtextextended(concat_ws('|', {', '.join(parts)}), 0)"


def checksum_rows(where: tuple[str, dict[str, Any]], style_names: tuple[str, ...]) -> tuple[int, int, int]:
    """(count, sum of ids, sum of the row hashes mod 2**64 as a signed int64) of a selection."""
    sql, params = where
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*), coalesce(sum(v.id), 0), coalesce(sum({_row_hash_sql(style_names)}::numeric), 0) {sql}",
                       params)
        count, ids, hashes = cursor.fetchone()
    return int(count), int(ids), _wrap(int(hashes))


def _wrap(value: int) -> int:
    """An integer mod 2**64, as a signed int64 (what numpy's wrapping int64 sum gives)."""
    value %= 1 << 64
    return value - (1 << 64) if value >= 1 << 63 else value


def _labels(where: tuple[str, dict[str, Any]]) -> tuple[dict[str, list[str]], int, int]:
    """The distinct values of each group and of the intent method among the selected votes, each in order
    of first appearance (by vote id), empty ones left out; the number of votes and the highest id."""
    sql, params = where
    keys = [*GROUP_SQL, "method"]
    exprs = [*GROUP_SQL.values(), _METHOD_SQL]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(exprs)}, count(*), min(v.id), max(v.id) {sql} GROUP BY 1, 2, 3", params)
        rows = cursor.fetchall()
    labels: dict[str, list[str]] = {}
    for i, key in enumerate(keys):
        first: dict[str, int] = {}
        for row in rows:
            if row[i]:
                first[row[i]] = min(first.get(row[i], row[-2]), row[-2])
        labels[key] = sorted(first, key=first.__getitem__)
    return labels, sum(row[-3] for row in rows), max((row[-1] for row in rows), default=0)


def read_votes(setting: str, cut: dt.datetime | None, style_names: tuple[str, ...], *, after: int | None = None,
               old_cut: dt.datetime | None = None, attributed: dict[tuple[int, str], dict[str, float]] | None = None,
               chunk_bytes: int | None = None) -> VoteRows:
    """The selected votes (:func:`selection`) as :class:`VoteRows`, in vote order, with the checksum of
    the rows read (:func:`checksum_rows`'s third figure). Two statements: the labels and the count, then
    the COPY of the votes up to the highest id the first saw (a vote committed in between is left to the
    next read), in one repeatable-read transaction when the caller holds none."""
    from evaluators.arena.rating_types import OUTCOMES

    k = len(style_names)
    row = np.dtype([("fields", ">i2"), ("vote", _field(">i8")), ("battle", _field(">i8")), ("a", _field(">i4")), ("b", _field(">i4")),
                    ("outcome", _field(">i2")), ("propensity", _field(">f8")), ("hash", _field(">i8")),
                    *((f"code_{key}", _field(">i2")) for key in [*GROUP_SQL, "method"]),
                    ("fa", _field(">f4"), (k,)), ("fb", _field(">f4"), (k,))])
    outcome_sql = " ".join(f"WHEN '{o}' THEN {i}" for i, o in enumerate(OUTCOMES))
    with _snapshot():
        labels, size, last = _labels(selection(setting, cut, after=after, old_cut=old_cut))
        sql, params = selection(setting, cut, after=after, old_cut=old_cut, upto=last)
        codes = [f"(coalesce(array_position(%(labels_{key})s::text[], {expr}), 0) - 1)::int2"
                 for key, expr in [*GROUP_SQL.items(), ("method", _METHOD_SQL)]]
        params.update({f"labels_{key}": values for key, values in labels.items()})
        features = [f"coalesce((b.features_{side} ->> '{name}')::float4, 0)" for side in "ab" for name in style_names]
        query = (f"COPY (SELECT v.id, b.id, b.model_a_id::int4, b.model_b_id::int4, (CASE v.winner {outcome_sql} ELSE -1 END)::int2, "
                 f"coalesce(b.propensity, 0)::float8, {_row_hash_sql(style_names)}, {', '.join(codes)}, {', '.join(features)} "
                 f"{sql} ORDER BY v.id) TO STDOUT (FORMAT BINARY)")
        out = _Columns(size, k, [*GROUP_SQL, "method"])
        out.overlay(attributed or {}, style_names)
        for chunk in _copy_chunks(query, params, row, chunk_bytes or CHUNK_BYTES):
            out.add(chunk)
    found = out.rows(labels)
    bad = np.flatnonzero(found.outcome < 0)
    if bad.size:
        vote = int(found.vote[bad[0]])
        winner = Vote.objects.values_list("winner", flat=True).get(pk=vote)
        raise ValueError(f"vote {vote}: winner {winner!r} is not one of {', '.join(OUTCOMES)}")
    return found


class _snapshot:
    """A repeatable-read transaction around the reads when the caller holds no transaction (both see
    the same votes); inside one (a test's, or a caller's), its own."""

    def __enter__(self) -> None:
        from django.db import transaction

        self._atomic = None
        if not connection.in_atomic_block:
            self._atomic = transaction.atomic()
            self._atomic.__enter__()
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def __exit__(self, *exc: Any) -> None:
        if self._atomic is not None:
            self._atomic.__exit__(*exc)


def _copy_chunks(query: str, params: dict[str, Any], row: np.dtype, chunk_bytes: int) -> Iterator[np.ndarray]:
    """The COPY's rows as structured arrays of about ``chunk_bytes`` each (the header checked and
    skipped, every field's length checked: a NULL or a wider value would shift the rows)."""
    widths = {name: row.fields[name][0] for name in row.names if name != "fields"}
    buffer = bytearray()
    header = False
    with connection.cursor() as wrapper:
        with wrapper.cursor.copy(query, params) as copy:
            for data in copy:
                buffer += data
                if not header and len(buffer) >= 19:
                    if bytes(buffer[:11]) != _SIGNATURE:
                        raise ValueError("COPY: not PostgreSQL's binary format")
                    extension = int.from_bytes(buffer[15:19], "big")
                    del buffer[:19 + extension]
                    header = True
                if len(buffer) >= chunk_bytes:
                    whole = len(buffer) // row.itemsize * row.itemsize
                    yield _checked(np.frombuffer(bytes(buffer[:whole]), dtype=row), widths)
                    del buffer[:whole]
    if buffer[-2:] == b"\xff\xff":
        del buffer[-2:]  # the trailer
    if len(buffer) % row.itemsize:
        raise ValueError("COPY: rows of unexpected width")
    if buffer:
        yield _checked(np.frombuffer(bytes(buffer), dtype=row), widths)


def _checked(rows: np.ndarray, widths: dict[str, np.dtype]) -> np.ndarray:
    if np.any(rows["fields"] != len(widths) + sum(max(dtype.shape[0] - 1, 0) if dtype.shape else 0 for dtype in widths.values())):
        raise ValueError("COPY: rows with an unexpected number of fields")
    for name, dtype in widths.items():
        value = dtype.base if dtype.shape else dtype
        if np.any(rows[name]["len"] != value["v"].itemsize):
            raise ValueError(f"COPY: field {name} is NULL or of unexpected width")
    return rows


class _Columns:
    """Preallocated column arrays, filled chunk by chunk (grown when the COPY has more rows than counted)."""

    def __init__(self, size: int, k: int, keys: list[str]) -> None:
        self.filled = 0
        self.digest = np.int64(0)
        self.cols: dict[str, np.ndarray] = {
            "vote": np.empty(size, np.int64), "a": np.empty(size, np.int32), "b": np.empty(size, np.int32),
            "outcome": np.empty(size, np.int8), "weight": np.empty(size, np.float64),
            "fa": np.empty((size, k), np.float32), "fb": np.empty((size, k), np.float32),
            **{f"code_{key}": np.empty(size, np.int16) for key in keys}}
        self.overlays: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def overlay(self, attributed: dict[tuple[int, str], dict[str, float]], style_names: tuple[str, ...]) -> None:
        """Values that replace the stored features of some battles' sides (the attribution counts, which
        may be computed after the vote): per side, the battles' ids (sorted) and their values (NaN: kept)."""
        columns = {name: j for j, name in enumerate(style_names)}
        for side in "ab":
            found = sorted((battle, values) for (battle, s), values in attributed.items() if s == side)
            ids = np.array([battle for battle, _ in found], dtype=np.int64)
            values = np.full((len(found), len(style_names)), np.nan, dtype=np.float32)
            for i, (_, given) in enumerate(found):
                for name, value in given.items():
                    if name in columns:
                        values[i, columns[name]] = value
            keep = ~np.isnan(values).all(axis=1)
            if keep.any():
                self.overlays["f" + side] = (ids[keep], values[keep])

    def add(self, rows: np.ndarray) -> None:
        end = self.filled + len(rows)
        if end > len(self.cols["vote"]):
            grow = max(end, len(self.cols["vote"]) * 5 // 4)
            for name, x in self.cols.items():
                bigger = np.empty((grow, *x.shape[1:]), dtype=x.dtype)
                bigger[:self.filled] = x[:self.filled]
                self.cols[name] = bigger
        for name, x in self.cols.items():
            if name != "weight":
                x[self.filled:end] = rows[name]["v"]
        propensity = rows["propensity"]["v"]
        drawn = propensity > 0  # not recorded (0): weight 1
        weight = self.cols["weight"][self.filled:end]
        weight[:] = 1.0
        weight[drawn] = 1.0 / propensity[drawn]
        with np.errstate(over="ignore"):
            self.digest += rows["hash"]["v"].astype(np.int64).sum(dtype=np.int64)
        if self.overlays:
            battles = rows["battle"]["v"].astype(np.int64)
            for name, (ids, values) in self.overlays.items():
                at = np.minimum(np.searchsorted(ids, battles), len(ids) - 1)
                hit = np.flatnonzero(ids[at] == battles)
                if hit.size:
                    given = values[at[hit]]
                    target = self.cols[name][self.filled + hit]
                    target[~np.isnan(given)] = given[~np.isnan(given)]
                    self.cols[name][self.filled + hit] = target
        self.filled = end

    def rows(self, labels: dict[str, list[str]]) -> VoteRows:
        arrays = {name: x[:self.filled] for name, x in self.cols.items()}
        return VoteRows.from_arrays(arrays, labels, digest=int(self.digest))
