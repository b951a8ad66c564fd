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
(``ratings.vote_table``) turns them into the rating code's arrays, and may keep them on disk and read
only the votes that entered or changed since (``ratings.vote_table(cached=True)``). On a database other
than PostgreSQL the same rows come through the ORM, a chunk of tuples at a time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection

from leaderboard.arena.models import Battle, Vote

#: the battle's intent method as the ratings count it: the recorded one, else imported or not recorded
IMPORTED_INTENT_METHOD = "as released with the imported dataset"
_METHOD_SQL = (
    "CASE WHEN coalesce(b.extra ->> 'intent_method', '') <> '' THEN b.extra ->> 'intent_method' "
    f"WHEN coalesce(b.conv_id, '') <> '' THEN '{IMPORTED_INTENT_METHOD}' ELSE 'not recorded' END"
)
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

    def __len__(self) -> int:
        return len(self.vote)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every per-vote array by name (for storing and for joining two sets of rows)."""
        return {
            "vote": self.vote,
            "a": self.a,
            "b": self.b,
            "outcome": self.outcome,
            "weight": self.weight,
            "fa": self.fa,
            "fb": self.fb,
            **{f"code_{key}": codes for key, codes in self.codes.items()},
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], labels: dict[str, list[str]]) -> VoteRows:
        return cls(
            vote=arrays["vote"],
            a=arrays["a"],
            b=arrays["b"],
            outcome=arrays["outcome"],
            weight=arrays["weight"],
            codes={key: arrays[f"code_{key}"] for key in labels},
            labels=labels,
            fa=arrays["fa"],
            fb=arrays["fb"],
        )


def selection(
    setting: str,
    cut: dt.datetime | None,
    *,
    after: int | None = None,
    old_cut: dt.datetime | None = None,
    again: list[int] | None = None,
    upto: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """FROM and WHERE of the valid votes of ``setting`` closed under ``cut`` (imported, or cast before it;
    None: all), and, for an update of kept rows, not among those kept (not: id <= ``after`` and closed
    under ``old_cut``) or among the ids ``again`` (changed since they were kept); ``upto``: ids up to it only."""
    sql = (
        f"FROM {Vote._meta.db_table} v JOIN {Battle._meta.db_table} b ON b.id = v.battle_id "
        "WHERE v.valid AND b.setting = %(setting)s"
    )
    params: dict[str, Any] = {"setting": setting}
    if cut is not None:
        sql += " AND (b.conv_id IS NOT NULL OR v.created_at < %(cut)s)"
        params["cut"] = cut
    if after is not None:
        params["after"], params["again"] = after, again or []
        if old_cut is None:
            sql += " AND (v.id > %(after)s OR v.id = ANY(%(again)s::bigint[]))"
        else:
            sql += (
                " AND (v.id > %(after)s OR (b.conv_id IS NULL AND v.created_at >= %(old_cut)s) OR v.id = "
                "ANY(%(again)s::bigint[]))"
            )
            params["old_cut"] = old_cut
    if upto is not None:
        sql += " AND v.id <= %(upto)s"
        params["upto"] = upto
    return sql, params


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


def read_votes(
    setting: str,
    cut: dt.datetime | None,
    style_names: tuple[str, ...],
    *,
    after: int | None = None,
    old_cut: dt.datetime | None = None,
    again: list[int] | None = None,
    attributed: dict[tuple[int, str], dict[str, float]] | None = None,
    chunk_bytes: int | None = None,
) -> VoteRows:
    """The selected votes (:func:`selection`) as :class:`VoteRows`, in vote order, the attribution
    counts ``attributed`` ((battle, side) -> features) replacing the stored ones. Two statements: the
    labels and the count, then the COPY of the votes up to the highest id the first saw (a vote committed
    in between is left to the next read), in one repeatable-read transaction when the caller holds none.
    On a database other than PostgreSQL, the same rows through the ORM (:func:`_read_orm`)."""
    from evaluators.arena.rating_types import OUTCOMES

    if connection.vendor != "postgresql":
        return _read_orm(
            setting, cut, style_names, after=after, old_cut=old_cut, again=again, attributed=attributed or {}
        )

    k = len(style_names)
    row = np.dtype(
        [
            ("fields", ">i2"),
            ("vote", _field(">i8")),
            ("battle", _field(">i8")),
            ("a", _field(">i4")),
            ("b", _field(">i4")),
            ("outcome", _field(">i2")),
            ("propensity", _field(">f8")),
            *((f"code_{key}", _field(">i2")) for key in [*GROUP_SQL, "method"]),
            ("fa", _field(">f4"), (k,)),
            ("fb", _field(">f4"), (k,)),
        ]
    )
    outcome_sql = " ".join(f"WHEN '{o}' THEN {i}" for i, o in enumerate(OUTCOMES))
    with _snapshot():
        labels, size, last = _labels(selection(setting, cut, after=after, old_cut=old_cut, again=again))
        sql, params = selection(setting, cut, after=after, old_cut=old_cut, again=again, upto=last)
        codes = [
            f"(coalesce(array_position(%(labels_{key})s::text[], {expr}), 0) - 1)::int2"
            for key, expr in [*GROUP_SQL.items(), ("method", _METHOD_SQL)]
        ]
        params.update({f"labels_{key}": values for key, values in labels.items()})
        features = [f"coalesce((b.features_{side} ->> '{name}')::float4, 0)" for side in "ab" for name in style_names]
        query = (
            f"COPY (SELECT v.id, b.id, b.model_a_id::int4, b.model_b_id::int4, (CASE v.winner {outcome_sql} ELSE -1 "
            f"END)::int2, "
            f"coalesce(b.propensity, 0)::float8, {', '.join(codes)}, {', '.join(features)} "
            f"{sql} ORDER BY v.id) TO STDOUT (FORMAT BINARY)"
        )
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
    fields: Any = row.fields or {}
    widths: dict[str, np.dtype] = {name: fields[name][0] for name in row.names or () if name != "fields"}
    buffer = bytearray()
    header = False
    with connection.cursor() as wrapper, wrapper.cursor.copy(query, params) as copy:
        for data in copy:
            buffer += data
            if not header and len(buffer) >= 19:
                if bytes(buffer[:11]) != _SIGNATURE:
                    raise ValueError("COPY: not PostgreSQL's binary format")
                extension = int.from_bytes(buffer[15:19], "big")
                del buffer[: 19 + extension]
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
    if np.any(
        rows["fields"]
        != len(widths) + sum(max(dtype.shape[0] - 1, 0) if dtype.shape else 0 for dtype in widths.values())
    ):
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
        self.cols: dict[str, np.ndarray] = {
            "vote": np.empty(size, np.int64),
            "a": np.empty(size, np.int32),
            "b": np.empty(size, np.int32),
            "outcome": np.empty(size, np.int8),
            "weight": np.empty(size, np.float64),
            "fa": np.empty((size, k), np.float32),
            "fb": np.empty((size, k), np.float32),
            **{f"code_{key}": np.empty(size, np.int16) for key in keys},
        }
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
                bigger[: self.filled] = x[: self.filled]
                self.cols[name] = bigger
        for name, x in self.cols.items():
            if name != "weight":
                x[self.filled : end] = rows[name]["v"]
        propensity = rows["propensity"]["v"]
        drawn = propensity > 0  # not recorded (0): weight 1
        weight = self.cols["weight"][self.filled : end]
        weight[:] = 1.0
        weight[drawn] = 1.0 / propensity[drawn]
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
        arrays = {name: x[: self.filled] for name, x in self.cols.items()}
        return VoteRows.from_arrays(arrays, labels)


def _read_orm(
    setting: str,
    cut: dt.datetime | None,
    style_names: tuple[str, ...],
    *,
    after: int | None,
    old_cut: dt.datetime | None,
    again: list[int] | None,
    attributed: dict[tuple[int, str], dict[str, float]],
) -> VoteRows:
    """:func:`read_votes` through the ORM (SQLite, for development): the same selection, labels and arrays."""
    from django.db.models import Q
    from django.db.models.fields.json import KeyTextTransform

    from evaluators.arena.rating_types import OUTCOMES, feature_matrix

    votes = Vote.objects.filter(valid=True, battle__setting=setting)
    if cut is not None:
        votes = votes.filter(Q(battle__conv_id__isnull=False) | Q(created_at__lt=cut))
    if after is not None:
        later = Q(pk__gt=after) | Q(pk__in=again or [])
        if old_cut is not None:
            later |= Q(battle__conv_id__isnull=True, created_at__gte=old_cut)
        votes = votes.filter(later)
    rows = list(
        votes.order_by("pk").values_list(
            "pk",
            "battle_id",
            "battle__model_a",
            "battle__model_b",
            "winner",
            "battle__propensity",
            "battle__primary_intent",
            KeyTextTransform("0", "battle__languages"),
            KeyTextTransform("intent_method", "battle__extra"),
            "battle__conv_id",
            "battle__features_a",
            "battle__features_b",
        )
    )
    outcome_of = {o: i for i, o in enumerate(OUTCOMES)}
    labels: dict[str, list[str]] = {key: [] for key in [*GROUP_SQL, "method"]}

    def code(key: str, value: str | None) -> int:
        if not value:
            return -1
        if value not in labels[key]:
            labels[key].append(value)
        return labels[key].index(value)

    for pk, _, _, _, winner, *_ in rows:
        if winner not in outcome_of:
            raise ValueError(f"vote {pk}: winner {winner!r} is not one of {', '.join(OUTCOMES)}")
    propensity = np.array([r[5] or 0.0 for r in rows], dtype=np.float64)
    weight = np.ones(len(rows))
    weight[propensity > 0] = 1.0 / propensity[propensity > 0]

    def features(side: int, name: str) -> np.ndarray:
        return feature_matrix(
            [{**(r[side] or {}), **attributed.get((r[1], name), {})} for r in rows], style_names
        ).astype(np.float32)

    arrays: dict[str, np.ndarray] = {
        "vote": np.array([r[0] for r in rows], dtype=np.int64),
        "a": np.array([r[2] for r in rows], dtype=np.int32),
        "b": np.array([r[3] for r in rows], dtype=np.int32),
        "outcome": np.array([outcome_of[r[4]] for r in rows], dtype=np.int8),
        "weight": weight,
        "fa": features(10, "a"),
        "fb": features(11, "b"),
        "code_intent": np.array([code("intent", r[6]) for r in rows], dtype=np.int16),
        "code_language": np.array([code("language", r[7]) for r in rows], dtype=np.int16),
        "code_method": np.array(
            [code("method", r[8] or (IMPORTED_INTENT_METHOD if r[9] else "not recorded")) for r in rows], dtype=np.int16
        ),
    }
    return VoteRows.from_arrays(arrays, labels)
