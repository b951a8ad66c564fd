"""Vote integrity statistics: self-identifying responses, anomalous voters, near-duplicate prompts.

* ``self_identification``: a response counts as naming itself when its own prose has a first-person
  self-reference ("I am", "I'm", "my name is", "as a/an", "I was trained/built/made/developed by",
  "made/created/developed/trained by", "I'm powered by"...) followed within a few words by one of
  the given names (model, family or maker), in the same sentence. Brands elsewhere are normal in
  search answers, so URLs, markdown links (target and text: a linked title is the source's words,
  not the model's), quoted snippets (block quotes and text inside
  quotation marks) and citation lists (everything after a "Sources:"/"References:" heading, and
  lines that start with a citation marker such as "[1]") are removed first.
* ``anomalous_voters``: ratings are fitted on all votes (raw Bradley-Terry, ties as half); for each
  voter with at least ``min_votes`` decisive votes, the log-likelihood of their choices is compared
  with its expectation and variance under the fitted win probabilities (a score test). Voters whose
  z-score is below ``-threshold`` (default 4: with thousands of voters, 3 would flag honest ones)
  are flagged with the figures as the reason. Ties are not scored.
* ``near_duplicate_groups``: character 5-gram shingles of the normalised text, 128 MinHash values,
  LSH with 32 bands of 4 rows (candidate pairs for Jaccard well below 0.8), then exact Jaccard on
  the shingle sets and union-find; groups of two or more ids are returned.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from evaluators.arena.ratings import OUTCOMES, BattleArrays, RatingConfig, rate

PromptId = TypeVar("PromptId", bound=Hashable)
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_BLOCKQUOTE = re.compile(r"^\s*>.*$", re.MULTILINE)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|„[^“\n]*“")
_SOURCES_HEADING = re.compile(
    r"^\s*(?:#+\s*|\*\*)?(?:sources|references|citations|bibliography|works cited|links)\b\**\s*:?\**\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_CITATION_LINE = re.compile(r"^\s*(?:[-*]\s*)?\[\^?\d+\].*$", re.MULTILINE)
_SELF = (
    r"(?:\bI\s+am\b|\bI'm\b|\bI’m\b|\bmy\s+name\s+is\b|\bas\s+an?\b|\bI\s+was\s+(?:trained|built|made|created|developed|designed)\s+by\b|"
    r"\b(?:made|created|developed|trained|built|designed)\s+by\b|\bpowered\s+by\b|\bthis\s+is\b|\bcall\s+me\b)"
)
_GAP = r"(?:[\s,]+[\w\-.’']+){0,4}?[\s,]+"


def _prose(text: str) -> str:
    heading = _SOURCES_HEADING.search(text)
    if heading:
        text = text[: heading.start()]
    text = _CITATION_LINE.sub(" ", text)
    text = _BLOCKQUOTE.sub(" ", text)
    text = _LINK.sub(" ", text)
    text = _URL.sub(" ", text)
    return _QUOTED.sub(" ", text)


def _name_pattern(name: str) -> str:
    parts = [re.escape(p) for p in re.split(r"[\s\-_]+", name.strip()) if p]
    return r"[\s\-_]?".join(parts)


def self_identification(text: str, names: Sequence[str]) -> str | None:
    """The phrase in which the response's own prose names one of ``names``, or None."""
    patterns = [_name_pattern(n) for n in names if n and n.strip()]
    if not patterns:
        return None
    names_re = r"(?:" + "|".join(sorted(patterns, key=len, reverse=True)) + r")(?![\w\-])"
    found = re.search(_SELF + _GAP + names_re + r"|" + _SELF + r"\s+" + names_re, _prose(text), re.IGNORECASE)
    return " ".join(found.group(0).split()) if found else None


def anomalous_voters(
    votes: Sequence[tuple[Hashable, str, str, str] | Mapping[str, Any]], *, min_votes: int = 20, threshold: float = 4.0
) -> dict[Hashable, str]:
    """Voters whose decisive choices are too unlikely under the fitted ratings (module doc). A vote
    is ``(voter, model_a, model_b, winner)`` or a mapping with those keys."""
    if not votes:
        return {}
    codes = {o: i for i, o in enumerate(OUTCOMES)}
    models: dict[str, int] = {}
    voters: dict[Hashable, int] = {}
    a, b, outcome, voter = [], [], [], []
    for line, vote in enumerate(votes):
        who, model_a, model_b, winner = (
            (vote["voter"], vote["model_a"], vote["model_b"], vote["winner"]) if isinstance(vote, Mapping) else vote
        )
        if winner not in codes:
            raise ValueError(f"vote {line}: winner {winner!r} is not one of {', '.join(OUTCOMES)}")
        a.append(models.setdefault(model_a, len(models)))
        b.append(models.setdefault(model_b, len(models)))
        outcome.append(codes[winner])
        voter.append(voters.setdefault(who, len(voters)))
    arr = BattleArrays(list(models), np.array(a), np.array(b), np.array(outcome))
    result = rate(arr, RatingConfig(interval="sandwich", robustness=False))
    rating = {m.name: m.rating for m in result.models}
    theta = np.array([rating[name] for name in arr.models]) * math.log(10.0) / 400.0
    p_a = 1.0 / (1.0 + np.exp(-(theta[arr.a] - theta[arr.b])))
    decisive = arr.outcome < 2
    p_choice = np.where(arr.outcome == 0, p_a, 1.0 - p_a)
    logit = np.log(p_a) - np.log1p(-p_a)
    loglik = np.log(p_choice)
    expected = p_a * np.log(p_a) + (1.0 - p_a) * np.log1p(-p_a)
    variance = p_a * (1.0 - p_a) * logit**2
    underdog = np.where(arr.outcome == 0, p_a < 0.5, p_a > 0.5)
    who_idx = np.array(voter)
    n_voters = len(voters)
    sums = {
        name: np.bincount(who_idx[decisive], weights=values[decisive], minlength=n_voters)
        for name, values in (
            ("n", np.ones(len(arr))),
            ("ll", loglik),
            ("e", expected),
            ("v", variance),
            ("u", underdog),
        )
    }
    flagged: dict[Hashable, str] = {}
    for who, i in voters.items():
        n = int(sums["n"][i])
        if n < min_votes or sums["v"][i] <= 0:
            continue
        z = (sums["ll"][i] - sums["e"][i]) / math.sqrt(sums["v"][i])
        if z < -threshold:
            flagged[who] = (
                f"{n} decisive votes with log-likelihood {sums['ll'][i]:.1f} against {sums['e'][i]:.1f} "
                f"+- {math.sqrt(sums['v'][i]):.1f} expected under the fitted ratings (z = {z:.1f}); "
                f"picked the lower-rated model {int(sums['u'][i])} times"
            )
    return flagged


_SHINGLE = 5
_PERMUTATIONS = 128
_BANDS = 32
_PRIME = (1 << 61) - 1


def _shingles(text: str) -> set[int]:
    norm = " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
    if len(norm) <= _SHINGLE:
        return {zlib.crc32(norm.encode())}
    return {zlib.crc32(norm[i : i + _SHINGLE].encode()) for i in range(len(norm) - _SHINGLE + 1)}


def _lsh_buckets(shingle_sets: list[set[int]]) -> list[list[int]]:
    """Indexes of documents that share all MinHash values of some band (only buckets of 2 or more)."""
    if not shingle_sets:
        return []
    rng = np.random.default_rng(0)
    mult = rng.integers(1, _PRIME, _PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
    add = rng.integers(0, _PRIME, _PERMUTATIONS, dtype=np.uint64)
    sizes = np.array([len(x) for x in shingle_sets])
    hashes = np.fromiter(itertools.chain.from_iterable(shingle_sets), dtype=np.uint64, count=int(sizes.sum()))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    signatures = np.empty((len(shingle_sets), _PERMUTATIONS), dtype=np.uint64)
    first = 0
    while first < len(shingle_sets):  # chunks of about 100,000 shingles keep memory small
        last = int(np.searchsorted(starts, starts[first] + 100_000, side="right")) - 1
        last = min(max(last, first + 1), len(shingle_sets))
        h = hashes[starts[first] : starts[last]]
        with np.errstate(over="ignore"):  # multiply-shift hashing: wrapping uint64 arithmetic is intended
            hashed = (h[:, None] * mult[None, :] + add[None, :]) >> np.uint64(17)
        signatures[first:last] = np.minimum.reduceat(hashed, starts[first:last] - starts[first], axis=0)
        first = last
    rows = _PERMUTATIONS // _BANDS
    mix = rng.integers(1, _PRIME, rows, dtype=np.uint64) | np.uint64(1)
    with np.errstate(over="ignore"):
        keys = (signatures.reshape(len(shingle_sets), _BANDS, rows) * mix).sum(axis=2, dtype=np.uint64)
    buckets: list[list[int]] = []
    for band in range(_BANDS):
        order = np.argsort(keys[:, band], kind="stable")
        sorted_keys = keys[order, band]
        bounds = np.flatnonzero(np.diff(sorted_keys)) + 1
        for group in np.split(order, bounds):
            if len(group) > 1:
                buckets.append(group.tolist())
    return buckets


def near_duplicate_groups(
    prompts: Sequence[tuple[PromptId, str]] | Mapping[PromptId, str], *, threshold: float = 0.8
) -> list[list[PromptId]]:
    """Groups of prompt ids whose texts have Jaccard similarity >= ``threshold`` (transitively);
    ``prompts`` is ``(id, text)`` pairs or a mapping of id to text."""
    if isinstance(prompts, Mapping):
        prompts = list(prompts.items())
    if not 0.0 < threshold <= 1.0:
        raise ValueError("threshold: must be in (0, 1]")
    shingle_sets = [_shingles(text) for _, text in prompts]
    buckets = _lsh_buckets(shingle_sets)
    parent = list(range(len(prompts)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for members in buckets:
        # Compare each member with one representative per group already seen in this bucket, so a
        # flood of thousands of copies costs linear, not quadratic, time.
        representatives: list[int] = []
        for i in members:
            for r in representatives:
                if find(i) == find(r):
                    break
                x, y = shingle_sets[i], shingle_sets[r]
                if len(x & y) >= threshold * len(x | y):
                    parent[find(i)] = find(r)
                    break
            else:
                representatives.append(i)
    groups: dict[int, list[PromptId]] = {}
    for index, (pid, _) in enumerate(prompts):
        groups.setdefault(find(index), []).append(pid)
    return [g for g in groups.values() if len(g) > 1]
