"""The arena's topic explorer and prompt-conditioned leaderboard: the maths, with numpy only.

* **Representation.** Prompts become unit vectors: either embeddings from an OpenAI-compatible
  ``/v1/embeddings`` endpoint (computed by the caller and passed in), or TF-IDF here
  (:class:`Vocabulary`): lower-cased words of two letters or more, English stop words dropped, the
  ``max_features`` words found in the most prompts (at least ``min_df`` of them), sublinear term
  frequency (1 + log tf) times smoothed idf (log((1 + n) / (1 + df)) + 1), L2-normalised. When the
  vocabulary is larger than ``dim`` the TF-IDF rows are projected onto ``dim`` seeded Gaussian
  directions (Johnson-Lindenstrauss; cosines kept within about 1/sqrt(dim)) and renormalised, so that
  a million prompts take ``dim`` floats each.
* **Topics** (:func:`fit_topics`): spherical k-means (cosine; k-means++ initialisation, seeded, the
  best of ``n_init`` starts by within-topic cosine), first into ``k_top`` topics, then each topic with
  at least ``2 * min_topic`` prompts into ``k_sub`` subtopics. Each topic's label is its top words by
  class-based TF-IDF (BERTopic's c-TF-IDF: a topic's term frequency, L1-normalised, times
  log(1 + average words per topic / the term's frequency over all topics)): keywords, not a sentence.
* **Incremental assignment** (:func:`assign`): new prompts go to the nearest topic and subtopic of
  the stored model, with the vocabulary and idf frozen at the last refit. A full refit is due
  (:func:`refit_due`) when there is no model, when the prompts since the refit exceed
  ``refit_growth`` times the prompts it was fitted on, or when more than ``drift_share`` of the new
  prompts are *far*: less similar to their nearest topic than the 5th percentile of the fitted
  prompts' own similarity (by construction 5% of the fitted prompts are that far, so a share well
  above it means topics the model does not know).
The prompt-conditioned fit and the held-out comparison that use these vectors are in
:mod:`evaluators.arena.conditioned`.

:func:`adjusted_rand_index` scores a clustering against a known one (the tests' planted topics).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, ParamSpec, TypeVar

import numpy as np

P = ParamSpec("P")
R = TypeVar("R")
_WORD = re.compile(r"[^\W\d_]{2,}")
STOP_WORDS = frozenset(
    """
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our
ours out over own same she should so some such than that the their theirs them then there these they this those
through to too under until up very was we were what when where which while who whom why will with would you your
yours yourself please tell give know want need get like make use using one also may might much many way""".split()
)


def words(text: str) -> list[str]:
    """The words TF-IDF counts: lower-cased runs of two letters or more, stop words dropped."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


# ---------------------------------------------------------------- sparse counts and TF-IDF


@dataclass
class Counts:
    """Term counts of many prompts as CSR arrays: the terms of prompt i are ``terms[start[i]:start[i+1]]``."""

    start: np.ndarray
    terms: np.ndarray
    counts: np.ndarray

    @property
    def n(self) -> int:
        return len(self.start) - 1

    def rows(self) -> np.ndarray:
        """The prompt of every stored entry."""
        return np.repeat(np.arange(self.n), np.diff(self.start))


@dataclass
class Vocabulary:
    """The TF-IDF words, their idf and the projection that turns TF-IDF rows into ``dim`` floats."""

    words: list[str]
    idf: np.ndarray
    dim: int
    seed: int = 0
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _projection: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def fit(
        cls,
        texts: Sequence[str],
        *,
        max_features: int = 4096,
        min_df: int = 2,
        max_df: float = 0.5,
        dim: int = 256,
        seed: int = 0,
    ) -> Vocabulary:
        """The ``max_features`` words in the most prompts, found in at least ``min_df`` and at most
        ``max_df`` (a share) of them; ties by the word, so the vocabulary does not depend on order."""
        df: Counter[str] = Counter()
        for text in texts:
            df.update(set(words(text)))
        n = len(texts)
        kept = [(c, w) for w, c in df.items() if c >= min_df and c <= max_df * n]
        kept.sort(key=lambda cw: (-cw[0], cw[1]))
        chosen = sorted(w for _, w in kept[:max_features])
        counts = np.array([df[w] for w in chosen], dtype=float)
        idf = np.log((1.0 + n) / (1.0 + counts)) + 1.0
        return cls(words=chosen, idf=idf, dim=dim, seed=seed)

    def counts(self, texts: Sequence[str]) -> Counts:
        start = np.zeros(len(texts) + 1, dtype=np.int64)
        terms: list[int] = []
        values: list[int] = []
        index = self._index
        for i, text in enumerate(texts):
            tally = Counter(index[w] for w in words(text) if w in index)
            terms.extend(tally.keys())
            values.extend(tally.values())
            start[i + 1] = len(terms)
        return Counts(start, np.array(terms, dtype=np.int64), np.array(values, dtype=np.float64))

    @property
    def projection(self) -> np.ndarray | None:
        """(V, dim) seeded Gaussian directions; None when the vocabulary fits in ``dim`` (no projection)."""
        if len(self.words) <= self.dim:
            return None
        if self._projection is None:
            rng = np.random.default_rng(self.seed)
            self._projection = (rng.standard_normal((len(self.words), self.dim)) / math.sqrt(self.dim)).astype(
                np.float32
            )
        return self._projection

    @property
    def width(self) -> int:
        return len(self.words) if self.projection is None else self.dim

    def vectors(self, texts: Sequence[str] | Counts, chunk: int = 20_000) -> np.ndarray:
        """Unit TF-IDF vectors (projected when the vocabulary exceeds ``dim``), float32; a prompt with
        no known word is the zero vector (similar to nothing)."""
        c = texts if isinstance(texts, Counts) else self.counts(texts)
        out = np.zeros((c.n, self.width), dtype=np.float32)
        rows = c.rows()
        weight = (1.0 + np.log(np.maximum(c.counts, 1.0))) * self.idf[c.terms]
        norms = np.sqrt(np.bincount(rows, weights=weight * weight, minlength=c.n))
        weight = weight / np.where(norms > 0, norms, 1.0)[rows]
        projection = self.projection
        for lo in range(0, c.n, chunk):
            hi = min(lo + chunk, c.n)
            s, e = c.start[lo], c.start[hi]
            dense = np.zeros((hi - lo, len(self.words)), dtype=np.float32)
            dense[rows[s:e] - lo, c.terms[s:e]] = weight[s:e]
            out[lo:hi] = dense if projection is None else dense @ projection
        return normalise(out) if projection is not None else out

    def to_dict(self) -> dict[str, Any]:
        return {"words": self.words, "idf": self.idf.tolist(), "dim": self.dim, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Vocabulary:
        return cls(
            words=list(data["words"]),
            idf=np.asarray(data["idf"], dtype=float),
            dim=int(data["dim"]),
            seed=int(data["seed"]),
        )


def normalise(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out: np.ndarray = x / np.where(norms > 0, norms, 1.0)
    return out


# ---------------------------------------------------------------- k-means


def kmeans(
    x: np.ndarray, k: int, *, seed: int = 0, n_init: int = 3, max_iter: int = 50, tol: float = 1e-3
) -> tuple[np.ndarray, np.ndarray]:
    """Spherical k-means on unit rows: (unit centroids (k, d), each row's topic). k-means++ starts
    (squared distance 2 - 2 cos), seeded; each start iterates until at most ``tol`` of the rows change
    topic (or ``max_iter``), and the one with the highest total cosine is kept. An emptied topic takes
    the row farthest from its centroid. One BLAS thread (:func:`one_blas_thread`)."""
    n = len(x)
    k = max(1, min(k, n))
    rng = np.random.default_rng(seed)
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for _ in range(n_init):
        centres = _plus_plus(x, k, rng)
        label = np.zeros(n, dtype=np.int64)
        for it in range(max_iter):
            sim = x @ centres.T
            new = np.argmax(sim, axis=1)
            moved = int(np.count_nonzero(new != label))
            label = new
            if it and moved <= tol * n:
                break
            centres = _centroids(x, label, k)
            empty = np.flatnonzero(~np.any(centres, axis=1))
            if len(empty):
                far = np.argsort(sim[np.arange(n), label])[: len(empty)]
                centres[empty] = x[far]
                label[far] = empty
        score = float(np.sum(np.einsum("ij,ij->i", x, centres[label])))
        if best is None or score > best[0]:
            best = (score, centres, label)
    assert best is not None
    return best[1], best[2]


def _plus_plus(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    n = len(x)
    chosen = [int(rng.integers(n))]
    closest = np.maximum(2.0 - 2.0 * (x @ x[chosen[0]]), 0.0)
    for _ in range(1, k):
        total = float(closest.sum())
        pick = int(rng.choice(n, p=closest / total)) if total > 0 else int(rng.integers(n))
        chosen.append(pick)
        closest = np.minimum(closest, np.maximum(2.0 - 2.0 * (x @ x[pick]), 0.0))
    out: np.ndarray = x[chosen].copy()
    return out


def _centroids(x: np.ndarray, label: np.ndarray, k: int) -> np.ndarray:
    """Each topic's unit mean direction, in ``x``'s float type: a one-hot (k, n) matrix times ``x``
    (one matrix product; ``np.add.at`` is a hundred times slower)."""
    onehot = np.zeros((k, len(x)), dtype=x.dtype)
    onehot[label, np.arange(len(x))] = 1.0
    return normalise(onehot @ x).astype(x.dtype, copy=False)


# ---------------------------------------------------------------- labels


def class_tfidf(counts: Counts, label: np.ndarray, k: int, vocabulary: Sequence[str], top: int = 5) -> list[list[str]]:
    """Each class's ``top`` words by c-TF-IDF (module doc); [] for a class without words."""
    v = len(vocabulary)
    rows = counts.rows()
    tf = np.bincount(label[rows] * v + counts.terms, weights=counts.counts, minlength=k * v).reshape(k, v)
    per_class = tf.sum(axis=1, keepdims=True)
    freq = tf.sum(axis=0)
    average = float(per_class.mean()) if k else 0.0
    score = tf / np.where(per_class > 0, per_class, 1.0) * np.log(1.0 + average / np.where(freq > 0, freq, 1.0))
    out = []
    for j in range(k):
        order = np.argsort(-score[j], kind="stable")[:top]
        out.append([vocabulary[i] for i in order if score[j, i] > 0])
    return out


# ---------------------------------------------------------------- the topic model


@dataclass
class TopicModel:
    """What a refit keeps: the vocabulary (None for endpoint embeddings), the topics' and subtopics'
    centroids and labels, and what the refit rule compares new prompts with."""

    vocabulary: Vocabulary | None
    top: np.ndarray  # (k, d) unit centroids
    sub: list[np.ndarray]  # per topic, (k_j, d) unit centroids (one row: no subtopics)
    labels: list[list[str]]
    sub_labels: list[list[list[str]]]
    far_similarity: float  # 5th percentile of the fitted prompts' cosine to their topic
    fitted: int  # prompts at the refit

    def to_dict(self) -> dict[str, Any]:
        return {
            "vocabulary": self.vocabulary.to_dict() if self.vocabulary else None,
            "top": self.top.tolist(),
            "sub": [s.tolist() for s in self.sub],
            "labels": self.labels,
            "sub_labels": self.sub_labels,
            "far_similarity": self.far_similarity,
            "fitted": self.fitted,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TopicModel:
        return cls(
            vocabulary=Vocabulary.from_dict(data["vocabulary"]) if data.get("vocabulary") else None,
            top=np.asarray(data["top"], dtype=float),
            sub=[np.asarray(s, dtype=float) for s in data["sub"]],
            labels=data["labels"],
            sub_labels=data["sub_labels"],
            far_similarity=float(data["far_similarity"]),
            fitted=int(data["fitted"]),
        )


@dataclass
class Assignment:
    topic: np.ndarray
    subtopic: np.ndarray
    similarity: np.ndarray  # cosine to the topic's centroid


def one_blas_thread(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` with the BLAS on one thread, as the ratings do: the work is many small matrix
    products, which threads on a loaded machine slow down tenfold (measured: a 20,000-prompt refit took
    80 s with the default threads at load 12, 7.4 s with one)."""

    @wraps(fn)
    def limited(*args: P.args, **kwargs: P.kwargs) -> R:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return limited


@one_blas_thread
def fit_topics(
    x: np.ndarray,
    counts: Counts | None,
    vocabulary: Vocabulary | None,
    *,
    k_top: int = 8,
    k_sub: int = 4,
    min_topic: int = 20,
    seed: int = 0,
    label_words: Sequence[str] | None = None,
    sample: int = 50_000,
) -> tuple[TopicModel, Assignment]:
    """The two-level hierarchy (module doc) of unit rows ``x``. ``counts`` (term counts over
    ``label_words``, the vocabulary's words by default) give the labels; None: no labels. With more
    than ``sample`` rows the centroids are fitted on ``sample`` rows drawn at random (seeded) and every
    row is then assigned to its nearest: the refit's k-means costs the same at a million prompts as at
    fifty thousand, and a topic of under 1 in 1,000 prompts is what it may miss."""
    fit_rows = np.arange(len(x))
    if len(x) > sample:
        fit_rows = np.sort(np.random.default_rng(seed).choice(len(x), sample, replace=False))
    top, _ = kmeans(x[fit_rows], k_top, seed=seed)
    label = np.argmax(x @ top.T.astype(x.dtype, copy=False), axis=1)
    k = len(top)
    subs: list[np.ndarray] = []
    sub_label = np.zeros(len(x), dtype=np.int64)
    in_fit = np.zeros(len(x), dtype=bool)
    in_fit[fit_rows] = True
    for j in range(k):
        members = np.flatnonzero(label == j)
        fitted = members[in_fit[members]]
        if len(fitted) >= 2 * min_topic and k_sub > 1:
            centres, _ = kmeans(x[fitted], min(k_sub, len(fitted) // min_topic), seed=seed + 1 + j)
            sub_label[members] = np.argmax(x[members] @ centres.T.astype(x.dtype, copy=False), axis=1)
        else:
            centres = top[j : j + 1]
        subs.append(centres)
    sim = np.einsum("ij,ij->i", x, top[label].astype(x.dtype, copy=False)).astype(float)
    vocab_words = list(label_words if label_words is not None else (vocabulary.words if vocabulary else []))
    labels: list[list[str]] = [[] for _ in range(k)]
    sub_labels: list[list[list[str]]] = [[[] for _ in s] for s in subs]
    if counts is not None and vocab_words:
        labels = class_tfidf(counts, label, k, vocab_words)
        offset = np.cumsum([0] + [len(s) for s in subs])
        flat = class_tfidf(counts, offset[label] + sub_label, int(offset[-1]), vocab_words)
        sub_labels = [flat[offset[j] : offset[j + 1]] for j in range(k)]
    model = TopicModel(
        vocabulary=vocabulary,
        top=top,
        sub=subs,
        labels=labels,
        sub_labels=sub_labels,
        far_similarity=float(np.percentile(sim, 5)) if len(sim) else 0.0,
        fitted=len(x),
    )
    return model, Assignment(topic=label, subtopic=sub_label, similarity=sim)


@one_blas_thread
def assign(model: TopicModel, x: np.ndarray) -> Assignment:
    """Each row's nearest topic and, within it, nearest subtopic."""
    sim = x @ model.top.T
    topic = np.argmax(sim, axis=1) if len(x) else np.zeros(0, dtype=np.int64)
    sub = np.zeros(len(x), dtype=np.int64)
    for j, centres in enumerate(model.sub):
        rows = np.flatnonzero(topic == j)
        if len(rows) and len(centres) > 1:
            sub[rows] = np.argmax(x[rows] @ centres.T, axis=1)
    return Assignment(topic=topic, subtopic=sub, similarity=sim[np.arange(len(x)), topic] if len(x) else np.zeros(0))


@dataclass(frozen=True)
class RefitRule:
    refit_growth: float = 0.5
    drift_share: float = 0.2


def refit_due(model: TopicModel | None, new: Assignment, rule: RefitRule = RefitRule()) -> str:
    """Why a full refit is due ("" when the new prompts may be assigned instead; module doc)."""
    if model is None:
        return "no topic model yet"
    n = len(new.similarity)
    if n > rule.refit_growth * model.fitted:
        return f"{n} new prompts since the refit on {model.fitted}, more than {rule.refit_growth:.0%} of them"
    if n:
        far = float(np.mean(new.similarity < model.far_similarity))
        if far > rule.drift_share:
            return (
                f"{far:.0%} of the {n} new prompts are farther from every topic than 95% of the fitted ones "
                f"(the rule: above {rule.drift_share:.0%})"
            )
    return ""


# ---------------------------------------------------------------- adjusted Rand index


def adjusted_rand_index(truth: Sequence[int] | np.ndarray, found: Sequence[int] | np.ndarray) -> float:
    """Hubert and Arabie's adjusted Rand index of two labelings of the same items (1: the same
    partition; about 0: chance agreement)."""
    t, f = np.asarray(truth), np.asarray(found)
    _, ti = np.unique(t, return_inverse=True)
    _, fi = np.unique(f, return_inverse=True)
    table = np.zeros((ti.max() + 1, fi.max() + 1))
    np.add.at(table, (ti, fi), 1)
    return ari_from_table(table)


def ari_from_table(table: np.ndarray) -> float:
    def pairs(v: np.ndarray) -> float:
        return float(np.sum(v * (v - 1) / 2.0))

    n = float(table.sum())
    index = pairs(table)
    rows, cols = pairs(table.sum(axis=1)), pairs(table.sum(axis=0))
    expected = rows * cols / (n * (n - 1) / 2.0) if n > 1 else 0.0
    maximum = (rows + cols) / 2.0
    return 1.0 if maximum == expected else (index - expected) / (maximum - expected)


# ---------------------------------------------------------------- embeddings from an endpoint


def embed(base_url: str, model: str, texts: Sequence[str], *, batch: int = 128, timeout: float = 60.0) -> np.ndarray:
    """Unit embeddings of ``texts`` from an OpenAI-compatible ``POST {base_url}/v1/embeddings`` (vLLM
    serves one), ``batch`` texts a request, float32. Raises ``RuntimeError`` saying what went wrong."""
    import httpx

    url = base_url.rstrip("/")
    url = (
        url
        if url.endswith("/v1/embeddings")
        else (url + "/embeddings" if url.endswith("/v1") else url + "/v1/embeddings")
    )
    rows: list[list[float]] = []
    with httpx.Client(timeout=timeout) as client:
        for lo in range(0, len(texts), batch):
            chunk = list(texts[lo : lo + batch])
            try:
                response = client.post(url, json={"model": model, "input": chunk})
                response.raise_for_status()
                data = sorted(response.json()["data"], key=lambda d: int(d["index"]))
            except (httpx.HTTPError, KeyError, ValueError, TypeError) as exc:
                raise RuntimeError(f"the embeddings endpoint {url} failed: {exc}") from exc
            if len(data) != len(chunk):
                raise RuntimeError(f"the embeddings endpoint {url} returned {len(data)} vectors for {len(chunk)} texts")
            rows.extend([list(map(float, d["embedding"])) for d in data])
    return normalise(np.array(rows, dtype=np.float32).reshape(len(texts), -1))
