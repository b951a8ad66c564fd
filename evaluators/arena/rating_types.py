"""The arena ratings' inputs and outputs: votes (as records or arrays), the configuration, the results.

:class:`BattleRecord` is one counted vote; :class:`BattleArrays` holds many as index arrays, which
is what :func:`evaluators.arena.ratings.rate` works on. :class:`RatingConfig` says how to rate;
:class:`RatingResult` (with a :class:`ModelRating` per model and a :class:`StyleCoefficient` per style
feature) is what comes back, and both turn into plain dicts and back for storage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from typing import Any

import numpy as np

from evaluators.arena.style import STYLE_FEATURES

OUTCOMES: tuple[str, ...] = ("model_a", "model_b", "tie", "tie (bothbad)")


@dataclass
class BattleRecord:
    """One counted vote. ``features_*`` are style features (style.features); ``weight`` is the
    inverse-propensity weight (1 / probability the pair was drawn), used when ``use_weights``."""

    model_a: str
    model_b: str
    winner: str
    features_a: dict[str, float] = field(default_factory=dict)
    features_b: dict[str, float] = field(default_factory=dict)
    weight: float = 1.0
    intent: str = ""
    language: str = ""


@dataclass
class BattleArrays:
    """Votes as arrays, for speed: ``a``/``b`` index ``models``, ``outcome`` indexes ``OUTCOMES``;
    optional (n, k) ``features_a``/``features_b`` whose columns are ``feature_names``; optional
    ``weights`` (inverse propensities). ``feature_rows``: each vote's row in the features, when they are
    a larger table's (a subset that copies no features: ``subset(share_features=True)``)."""

    models: list[str]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    features_a: np.ndarray | None = None
    features_b: np.ndarray | None = None
    feature_names: tuple[str, ...] = ()
    weights: np.ndarray | None = None
    feature_rows: np.ndarray | None = None

    def __post_init__(self) -> None:
        m = len(self.models)
        # compact integer arrays (the ratings task's typed read) are kept while every cell key the fit
        # forms, (a * m + b) * len(OUTCOMES) + outcome, fits in them; anything else becomes int64
        self.a = _integers(self.a, m * m * len(OUTCOMES))
        self.b = _integers(self.b, m * m * len(OUTCOMES))
        self.outcome = _integers(self.outcome, m * m * len(OUTCOMES), smallest=1)
        n = len(self.a)
        if len(self.b) != n or len(self.outcome) != n:
            raise ValueError(
                f"a, b and outcome must have one entry per vote; got {n}, {len(self.b)}, {len(self.outcome)}"
            )
        if len(set(self.models)) != m:
            raise ValueError("models: names must be unique")
        if n:
            for name, idx in (("a", self.a), ("b", self.b)):
                if idx.min() < 0 or idx.max() >= m:
                    raise ValueError(f"{name}: model index out of range 0..{m - 1}")
            if self.outcome.min() < 0 or self.outcome.max() >= len(OUTCOMES):
                raise ValueError(f"outcome: codes must be 0..{len(OUTCOMES) - 1} (indexes into OUTCOMES)")
            same = np.flatnonzero(self.a == self.b)
            if same.size:
                raise ValueError(f"vote {int(same[0])}: model_a and model_b are the same model")
        for name in ("features_a", "features_b"):
            value = getattr(self, name)
            if value is not None:  # float32 kept (the typed read's), anything else as float64
                value = np.asarray(
                    value, dtype=np.float32 if getattr(value, "dtype", None) == np.float32 else np.float64
                )
                rows = n if self.feature_rows is None else value.shape[0]
                if value.shape != (rows, len(self.feature_names)):
                    raise ValueError(f"{name}: expected shape ({rows}, {len(self.feature_names)}), got {value.shape}")
                setattr(self, name, value)
        if self.feature_rows is not None:
            table = 0 if self.features_a is None else len(self.features_a)
            inside = not n or 0 <= self.feature_rows.min() <= self.feature_rows.max() < table
            if len(self.feature_rows) != n or not inside:
                raise ValueError("feature_rows: need one row of the features per vote")
        if self.weights is not None:
            self.weights = np.asarray(self.weights, dtype=float)
            if self.weights.shape != (n,) or not np.all(np.isfinite(self.weights)) or np.any(self.weights <= 0):
                raise ValueError("weights: need one finite positive weight per vote")

    def __len__(self) -> int:
        return len(self.a)

    def subset(self, rows: np.ndarray, *, share_features: bool = False) -> BattleArrays:
        """The votes at ``rows`` (a boolean mask or indexes) with only the models they name, numbered in
        order of first appearance (model_a, then model_b, vote by vote), as :meth:`from_records` numbers
        them: the same votes as records or as a subset rate the same. ``share_features``: the subset
        refers to these features by ``feature_rows`` instead of copying its rows of them."""
        a, b = self.a[rows], self.b[rows]
        shared = share_features and self.features_a is not None
        at = _feature_rows(self.feature_rows, rows, shared)
        order, renumber = first_appearance(a, b, len(self.models))
        renumber = renumber.astype(self.a.dtype)  # the votes' index dtype kept (int32 from the typed read)
        return BattleArrays(
            [self.models[i] for i in order.tolist()],
            renumber[a],
            renumber[b],
            self.outcome[rows],
            None if self.features_a is None else self.features_a if shared else self.features_a[at],
            None if self.features_b is None else self.features_b if shared else self.features_b[at],
            self.feature_names,
            None if self.weights is None else self.weights[rows],
            at if shared else None,
        )

    @classmethod
    def from_records(cls, records: Sequence[BattleRecord], feature_names: Sequence[str] = ()) -> BattleArrays:
        """Index the records; a missing style feature counts as 0."""
        index: dict[str, int] = {}
        codes = {o: i for i, o in enumerate(OUTCOMES)}
        n = len(records)
        a = np.empty(n, dtype=np.int64)
        b = np.empty(n, dtype=np.int64)
        outcome = np.empty(n, dtype=np.int64)
        for i, r in enumerate(records):
            if r.winner not in codes:
                raise ValueError(f"battle {i}: winner {r.winner!r} is not one of {', '.join(OUTCOMES)}")
            a[i] = index.setdefault(r.model_a, len(index))
            b[i] = index.setdefault(r.model_b, len(index))
            outcome[i] = codes[r.winner]
        names = tuple(feature_names)
        fa = fb = None
        if names:
            fa = feature_matrix([r.features_a for r in records], names)
            fb = feature_matrix([r.features_b for r in records], names)
        weights = np.array([r.weight for r in records], dtype=float)
        return cls(list(index), a, b, outcome, fa, fb, names, weights)


def _feature_rows(feature_rows: np.ndarray | None, rows: np.ndarray, shared: bool) -> Any:
    """The rows of the features of the votes at ``rows`` (a mask or indexes): through ``feature_rows``
    when the votes refer to a larger table's; as indexes when the subset is to share the features."""
    if feature_rows is not None:
        return feature_rows[rows]
    rows = np.asarray(rows)
    return np.flatnonzero(rows) if shared and rows.dtype == bool else rows


def _integers(values: Any, bound: int, *, smallest: int = 4) -> np.ndarray:
    """``values`` as an integer array: kept as it is when it is a signed integer array of at least
    ``smallest`` bytes (int32 model indexes; int8 outcome codes, which are only ever added to such
    keys) and every key below ``bound`` fits in int32; else int64."""
    if (
        isinstance(values, np.ndarray)
        and values.dtype.kind == "i"
        and smallest <= values.dtype.itemsize <= 4
        and bound < np.iinfo(np.int32).max
    ):
        return values
    return np.asarray(values, dtype=np.int64)


#: votes looked at a time by :func:`first_appearance` (its temporaries stay this small)
_APPEARANCE_BLOCK = 1 << 18


def first_appearance(a: np.ndarray, b: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The models (indexes below ``m``) that votes ``a``/``b`` name, in order of first appearance (model_a,
    then model_b, vote by vote), and the new number of each old index (-1: not named). Each model's
    first position (2 i for vote i's model_a, 2 i + 1 for its model_b) is the minimum over blocks of votes."""
    never = 2 * len(a)
    first = np.full(m, never, dtype=np.int64)
    for lo in range(0, len(a), _APPEARANCE_BLOCK):
        position = 2 * np.arange(lo, min(lo + _APPEARANCE_BLOCK, len(a)), dtype=np.int64)
        np.minimum.at(first, a[lo : lo + _APPEARANCE_BLOCK], position)
        np.minimum.at(first, b[lo : lo + _APPEARANCE_BLOCK], position + 1)
    used = np.flatnonzero(first < never)
    order = used[np.argsort(first[used], kind="stable")]
    renumber = np.full(m, -1, dtype=np.int64)
    renumber[order] = np.arange(len(order))
    return order, renumber


def feature_matrix(dicts: Sequence[dict[str, float]], names: tuple[str, ...]) -> np.ndarray:
    """Style features as an (n, len(names)) matrix, a row per dict; a missing feature counts as 0."""
    getter = itemgetter(*names)
    try:
        rows = [getter(d) for d in dicts]
    except KeyError:  # some record lacks a feature: count it as 0
        rows = [[d.get(f, 0.0) for f in names] for d in dicts]
    return np.array(rows, dtype=float).reshape(len(dicts), len(names))


@dataclass
class RatingConfig:
    reference: str | None = None
    reference_rating: float = 1000.0
    scale: float = 400.0
    base: float = 1000.0
    bootstrap_rounds: int = 100
    seed: int = 0
    interval: str = "bootstrap"  # bootstrap | sandwich
    style_control: bool = False
    style_features: tuple[str, ...] = STYLE_FEATURES
    l2: float = 1.0  # on the z-scored style coefficients, in units of votes
    rating_l2: float = 1e-6  # on the ratings (log-odds), only to keep them finite
    use_weights: bool = False
    min_votes: int = 100
    robustness: bool = True
    exact_style_bootstrap: bool = False  # refit every round (minutes on 1M votes) instead of the score bootstrap
    #: without a (usable) reference, anchor on the best-connected well-estimated model instead of the mean
    auto_reference: bool = False

    def __post_init__(self) -> None:
        if self.interval not in ("bootstrap", "sandwich"):
            raise ValueError(f"interval: must be 'bootstrap' or 'sandwich', got {self.interval!r}")
        if self.bootstrap_rounds < 1:
            raise ValueError("bootstrap_rounds: must be at least 1")
        if self.scale <= 0 or self.l2 < 0 or self.rating_l2 <= 0:
            raise ValueError("scale and rating_l2 must be positive and l2 non-negative")
        self.style_features = tuple(self.style_features)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["style_features"] = list(self.style_features)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RatingConfig:
        return cls(**{**data, "style_features": tuple(data.get("style_features", STYLE_FEATURES))})


@dataclass
class ModelRating:
    name: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    rank_ub: int
    votes: int
    wins: int
    losses: int
    ties: int
    provisional: bool
    rankable: bool = True
    note: str = ""
    #: False when the maximum-likelihood rating is infinite (only wins or only losses): ``rating`` is then
    #: the one-sided 95% bound and the other end of the interval is open (None)
    bounded: bool = True


@dataclass
class StyleCoefficient:
    """A style covariate's coefficient in rating points per standard deviation of the feature."""

    feature: str
    value: float
    ci_low: float
    ci_high: float


@dataclass
class RatingResult:
    models: list[ModelRating]  # by rating, best first
    coefficients: list[StyleCoefficient]
    matrix_models: list[str]  # row/column order of the matrices
    win_rate: list[list[float | None]]  # row's share of wins (ties half) against column; None: no battles
    battle_count: list[list[int]]
    n_battles: int
    config: dict[str, Any]
    method: str
    robustness: dict[str, Any] | None = None
    #: what the scale is anchored on: {"kind": "reference" | "mean", "model", "rating", "how", "models"}
    anchor: dict[str, Any] = field(default_factory=dict)
    #: the rows of the models fitted but withheld from everything above (``rate(withheld=...)``): never
    #: to be shown while they are withheld; ``public_dict`` leaves them out
    withheld: list[ModelRating] = field(default_factory=list)
    #: the fit's own parameters (log-odds, the pivot at 0), to start the next fit from (``rate(start=...)``):
    #: {"models": {name: theta}, "coefficients": {feature: beta per standard deviation}}; never stored
    #: with the result (``to_dict`` leaves it out: it names withheld models too)
    fitted: dict[str, dict[str, float]] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["fitted"]
        return data

    def public_dict(self) -> dict[str, Any]:
        """Everything but the withheld rows (``withheld_dicts``), as stored for the public board."""
        data = self.to_dict()
        del data["withheld"]
        return data

    def withheld_dicts(self) -> list[dict[str, Any]]:
        return [asdict(m) for m in self.withheld]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RatingResult:
        return cls(
            models=[ModelRating(**m) for m in data["models"]],
            coefficients=[StyleCoefficient(**c) for c in data.get("coefficients", [])],
            matrix_models=list(data["matrix_models"]),
            win_rate=[list(r) for r in data["win_rate"]],
            battle_count=[list(r) for r in data["battle_count"]],
            n_battles=int(data["n_battles"]),
            config=dict(data["config"]),
            method=str(data["method"]),
            robustness=data.get("robustness"),
            anchor=dict(data.get("anchor") or {}),
            withheld=[ModelRating(**m) for m in data.get("withheld", [])],
        )
