"""The Multi-hop Needle-in-a-Video-Haystack evaluators: two leaderboards over one release.

- ``video-niah-single``: a needle frame at a depth of N haystack frames; a question about it. Cell
  accuracy per (N, depth) and the largest N whose accuracy (over depths) still reaches 0.9. Shown as a
  depth x N heatmap on each model's row.
- ``video-niah-multi``: a chain of clue frames with decoys spread over N frames; Q1 asks what the
  chain's last frame shows, Q2 a question about it. Per N: (Q1 + Q2) / 2 and both correct. Shown as
  accuracy against N.

The headline is on the whole grid of the dataset version, as the released code averages every cell: a
question over the model's limit counts as a miss there, so a model that refuses the long half of the
grid cannot outrank one that tried it all. Beside it: the accuracy within the model's limit, the share of
the grid answered and the largest N answered. A slice that fixes N (a heatmap cell, a point of the lines)
is scored within the limit and reads "over limit" when every request of it was refused; a slice across
several N (a depth row, Q1 or Q2) counts over-limit questions as misses, like the headline.

The frames reach the model as a list of images (the default: every frame arrives), or with the setting
``{"mode": "video"}`` as one MP4 whose frames the server must not resample (``generation().server`` asks vLLM
for all frames); the mode is recorded with the run. N is the number of frames given to the model. A
request the server refuses for its length (context or images per prompt) is "over the model's limit":
shown per cell. Option letters come from ``evaluators.core.answers`` (never guessed from a sentence);
short answers ("Yellow", "200") count when the answer states them. A released question is sent as its
authors wrote it (``verbatim``); this platform's own sample questions are composed here. The method
card (``card.py``) sets the protocol beside LongVA's and VideoChat-Flash's released code.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from evaluators.core.answers import LETTERS, option_letter, states_answer
from evaluators.core.evaluator import (
    Aggregation,
    Evaluator,
    Generation,
    Heatmap,
    KeptScores,
    LineChart,
    Presentation,
    one_choice,
)
from evaluators.core.media import MediaSink, frames_part, sink_or_hashing
from evaluators.core.settings import generation_settings, item_seed
from evaluators.core.stats import ratio_with_ci
from evaluators.core.types import (
    Item,
    ItemScore,
    MethodNote,
    MetricColumn,
    MetricValue,
    ModelRequest,
    Prediction,
    ProtocolRow,
    ServerOptions,
    SliceDimension,
)
from evaluators.video_niah import card
from evaluators.video_niah.release import FRAME_MAX_SIDE, multi_hop_items, single_hop_items

DEFAULT_GENERATION: dict[str, Any] = {"n": 1, "temperature": 0.0, "top_p": 1.0, "max_tokens": 16, "seed": 0}
MODES = ("images", "video")
#: the share a model must still reach for "largest N at 0.9"
THRESHOLD = 0.9
OVER_LIMIT = "over_limit"


class _VideoNIAH(Evaluator):
    read_items: Callable[[Path, MediaSink], Iterator[Item]]

    def __init__(self, mode: str = "images") -> None:
        self.mode = mode

    def configured(self, settings: Mapping[str, Any]) -> Self:
        """A copy with the run's settings: ``mode`` (images or video) and nothing else."""
        mode = one_choice(settings, "mode", tuple(MODES), "images")
        configured = copy.copy(self)
        configured.mode = mode
        return configured

    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return type(self).read_items(Path(path), sink_or_hashing(media))

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = generation_settings(settings, DEFAULT_GENERATION)
        payload = item.payload
        frames = frames_part(
            payload["haystack"],
            payload["count"],
            {int(p): k for p, k in payload["insert"].items()},
            as_video=self.mode == "video",
        )
        if payload.get("verbatim"):  # a released question: its text, options and instruction as written
            text = str(payload["question"])
        else:
            lines = [f"These are {payload['count']} frames of a video, in order, one per second.", payload["question"]]
            if payload["options"]:
                lines += [f"{letter}. {option}" for letter, option in zip(LETTERS, payload["options"])]
                lines.append("Answer with the option's letter (A, B, C or D) only.")
            else:
                lines.append("Answer with a single word or number only.")
            text = "\n".join(lines)
        return [
            ModelRequest(
                item_id=item.id,
                messages=[{"role": "user", "content": [frames, {"type": "text", "text": text}]}],
                n=merged["n"],
                temperature=merged["temperature"],
                top_p=merged["top_p"],
                max_tokens=merged["max_tokens"],
                extra={"seed": item_seed(merged["seed"], item.id)},
            )
        ]

    def generation(self) -> Generation:
        """Frames go as images by default; the video mode needs a model that takes video and asks the
        server to keep every frame of it. The images or videos per prompt are counted from the requests
        themselves (leaderboard.runs.generation.plans)."""
        video = self.mode == "video"
        return Generation(modality="video" if video else "image", server=ServerOptions(video_all_frames=video))

    def environment(self) -> dict[str, str]:
        import av

        return {
            "mode": self.mode,
            "pyav": av.__version__,
            "frames": f"sampled at 1 per second, at most {FRAME_MAX_SIDE} px, JPEG",
        }

    # ----------------------------------------------------------------------------- scoring
    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        ordered = sorted(predictions, key=lambda p: p.sample_index)
        answer = ordered[0] if ordered else None
        payload = item.payload
        detail: dict[str, Any] = {
            "answer": (answer.output if answer else "")[:2000],
            "gold": payload["answer"],
            "error_kind": answer.error_kind if answer else "missing",
            # what the per-item page shows beside the answer: the question as sent and the
            # needle (or the chain's images) in the order the model saw them
            "question": payload["question"],
            "options": list(payload["options"] or []),
            "needles": [payload["insert"][p] for p in sorted(payload["insert"], key=int)],
        }
        if answer is not None and answer.error_kind == OVER_LIMIT:
            detail["over_limit"] = answer.error
            return ItemScore(item.id, dict(item.slices), {OVER_LIMIT: 1.0}, detail)
        text = answer.output if answer is not None and not answer.error_kind else ""
        if payload["options"]:
            parsed = option_letter(text, payload["options"]) if text else None
            correct = parsed == payload["answer"]
            detail["parsed"] = parsed
        else:
            correct = states_answer(text, payload["answer"])
        return ItemScore(item.id, dict(item.slices), {"correct": float(correct), OVER_LIMIT: 0.0}, detail)

    def aggregation(self, *, seed: int = 0, order: Sequence[str] | None = None) -> Aggregation:
        """Nothing of the detail kept: the aggregate reads ids, slices and scores, never the answers or the question
        shown."""
        return KeptScores(self, seed=seed, order=order, keep_detail=lambda detail: {})

    @staticmethod
    def _base(item_id: str) -> str:
        """The item without its rotation: circular evaluation counts a question once, right only if every rotation
        is."""
        head, _, tail = item_id.rpartition("/")
        return head if tail.startswith("r") and tail[1:].isdigit() else item_id

    def _questions(self, scores: Sequence[ItemScore]) -> list[ItemScore]:
        """One score per question: rotations merged (all right, or over the limit if any was)."""
        groups: dict[str, list[ItemScore]] = defaultdict(list)
        for score in scores:
            groups[self._base(score.item_id)].append(score)
        merged = []
        for base, group in groups.items():
            if any(s.scores.get(OVER_LIMIT) for s in group):
                merged.append(ItemScore(base, group[0].slices, {OVER_LIMIT: 1.0}))
            else:
                merged.append(
                    ItemScore(
                        base,
                        group[0].slices,
                        {"correct": float(all(s.scores["correct"] for s in group)), OVER_LIMIT: 0.0},
                    )
                )
        return merged

    @staticmethod
    def _cluster(score: ItemScore) -> str:
        return score.item_id.split("/")[1]  # the needle or the chain

    def _share(
        self, key: str, scores: Sequence[ItemScore], values: Sequence[float], group: dict[str, str], seed: int
    ) -> MetricValue | None:
        """The mean of ``values`` (one per score) with its interval, clustered by needle or chain."""
        if not scores:
            return None
        value, low, high = ratio_with_ci(
            list(values), [1.0] * len(scores), [self._cluster(s) for s in scores], seed=seed
        )
        return MetricValue(key, value, low, high, len(scores), dict(group))

    @staticmethod
    def _over(score: ItemScore) -> bool:
        return bool(score.scores.get(OVER_LIMIT))

    def _slice(
        self,
        key: str,
        scores: Sequence[ItemScore],
        group: dict[str, str],
        seed: int,
        value: Callable[[ItemScore], float],
    ) -> list[MetricValue]:
        """``key`` on one slice: within the model's limit where the slice fixes N (absent when every
        question of it was over the limit: the cell reads "over limit"), over the whole slice otherwise,
        an over-limit question counting as a miss; and the share over the limit."""
        if "frames" in group:
            answered = [s for s in scores if not self._over(s)]
            metric = self._share(key, answered, [value(s) for s in answered], group, seed)
        else:
            metric = self._share(key, scores, [0.0 if self._over(s) else value(s) for s in scores], group, seed)
        over = self._share(OVER_LIMIT, scores, [float(self._over(s)) for s in scores], group, seed)
        return [m for m in (metric, over) if m is not None]

    def _headline(
        self, questions: Sequence[ItemScore], seed: int, by_n: dict[int, list[ItemScore]]
    ) -> list[MetricValue]:
        """Beside the whole-grid accuracy: the accuracy within the limit, the share of the grid answered,
        the largest N whose every question was answered, and the largest N at 0.9 (on the whole of N)."""
        answered = [s for s in questions if not self._over(s)]
        out = [
            m
            for m in (
                self._share("accuracy_within_limit", answered, [s.scores["correct"] for s in answered], {}, seed),
                self._share("answered", questions, [float(not self._over(s)) for s in questions], {}, seed),
            )
            if m is not None
        ]
        if by_n:
            whole = {
                n: sum(0.0 if self._over(s) else s.scores["correct"] for s in group) / len(group)
                for n, group in by_n.items()
            }
            fully = [n for n, group in by_n.items() if not any(self._over(s) for s in group)]
            out.append(MetricValue("largest_answered", float(max(fully, default=0)), None, None, len(by_n)))
            out.append(
                MetricValue(
                    "frames_at_90",
                    float(max((n for n, v in whole.items() if v >= THRESHOLD), default=0)),
                    None,
                    None,
                    len(by_n),
                )
            )
        return out

    @staticmethod
    def _by_n(questions: Sequence[ItemScore]) -> dict[int, list[ItemScore]]:
        groups: dict[int, list[ItemScore]] = defaultdict(list)
        for score in questions:
            groups[int(score.slices["frames"])].append(score)
        return dict(sorted(groups.items()))


class VideoNIAHSingleEvaluator(_VideoNIAH):
    """Single hop (key ``video-niah-single``)."""

    key = "video-niah-single"
    metric_columns = (
        MetricColumn("accuracy", "Accuracy (over the limit = miss)", primary=True),
        MetricColumn("accuracy_within_limit", "Accuracy within the model's limit"),
        MetricColumn("answered", "Share of the grid answered"),
        MetricColumn("largest_answered", "Largest N answered", format="count"),
        MetricColumn("frames_at_90", "Largest N at 0.9", format="count"),
    )
    read_items = staticmethod(single_hop_items)

    def presentation(self) -> SinglePresentation:
        return SinglePresentation(self)

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        questions = self._questions([s for s in item_scores if not s.error])
        cells = sorted(
            {(s.slices["frames"], s.slices["depth"]) for s in questions}, key=lambda c: (int(c[0]), float(c[1]))
        )
        groups: list[dict[str, str]] = (
            [{}]
            + [{"frames": n} for n in sorted({c[0] for c in cells}, key=int)]
            + [{"depth": d} for d in sorted({c[1] for c in cells}, key=float)]
            + [{"frames": n, "depth": d} for n, d in cells]
        )
        out: list[MetricValue] = []
        for group in groups:
            subset = [s for s in questions if all(s.slices.get(k) == v for k, v in group.items())]
            out += self._slice("accuracy", subset, group, seed, lambda s: s.scores["correct"])
        return out + self._headline(questions, seed, self._by_n(questions))


class VideoNIAHMultiEvaluator(_VideoNIAH):
    """Multi hop (key ``video-niah-multi``)."""

    key = "video-niah-multi"
    metric_columns = (
        MetricColumn("accuracy", "(Q1 + Q2) / 2 (over the limit = miss)", primary=True),
        MetricColumn("both", "Both correct"),
        MetricColumn("accuracy_within_limit", "(Q1 + Q2) / 2 within the model's limit"),
        MetricColumn("answered", "Share of the grid answered"),
        MetricColumn("largest_answered", "Largest N answered", format="count"),
        MetricColumn("frames_at_90", "Largest N at 0.9", format="count"),
    )
    read_items = staticmethod(multi_hop_items)

    def presentation(self) -> MultiPresentation:
        return MultiPresentation(self)

    @staticmethod
    def _pair(score: ItemScore) -> str:
        return score.item_id.rsplit("/", 1)[0]  # multi/<chain>/<N>

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        questions = self._questions([s for s in item_scores if not s.error])
        pairs: dict[str, list[ItemScore]] = defaultdict(list)
        for score in questions:
            pairs[self._pair(score)].append(score)
        # a pair with a question over the limit is over the limit; "both" is 1 when both were answered right
        both = [
            ItemScore(
                key,
                {"frames": group[0].slices["frames"]},
                {
                    "both": float(len(group) == 2 and all(s.scores.get("correct") for s in group)),
                    OVER_LIMIT: float(any(self._over(s) for s in group)),
                },
            )
            for key, group in pairs.items()
        ]
        out: list[MetricValue] = []
        groups: list[dict[str, str]] = (
            [{}]
            + [{"frames": n} for n in sorted({s.slices["frames"] for s in questions}, key=int)]
            + [{"question": q} for q in ("q1", "q2")]
        )
        for group in groups:
            subset = [s for s in questions if all(s.slices.get(k) == v for k, v in group.items())]
            out += self._slice("accuracy", subset, group, seed, lambda s: s.scores["correct"])
            if "question" not in group:
                chosen = [b for b in both if all(b.slices.get(k) == v for k, v in group.items())]
                out += [
                    m for m in self._slice("both", chosen, group, seed, lambda b: b.scores["both"]) if m.key == "both"
                ]
        return out + self._headline(questions, seed, self._by_n(questions))


class _VideoPresentation(Presentation["_VideoNIAH"]):
    """What both Video NIAH boards' pages share: words for the item scores, full marks, how frames are sent and
    scored, the protocol card in the configured mode, the release's grid."""

    item_labels = {"correct": "Correct", OVER_LIMIT: "Over the model's limit"}

    def item_passed(self, score: ItemScore) -> bool | None:
        """Full marks: answered right; a question over the model's limit is a miss, as in the headline."""
        return not score.scores.get(OVER_LIMIT) and score.scores.get("correct") == 1.0

    def method_notes(self) -> list[MethodNote]:
        sent = (
            "one MP4 video per request, every frame kept (vLLM's frame sampling off)"
            if self.evaluator.mode == "video"
            else "a list of images, one per frame"
        )
        return [
            MethodNote(
                "How the frames are given",
                f"This site sends the frames as {sent} (mode {self.evaluator.mode}). N is the number of haystack "
                f"frames, as in "
                "the released harnesses: frames of the haystack video sampled at one per second, with the needle (or "
                "the "
                "chain's images) placed among them as the released code places them, so a cell of N frames sends N + 1 "
                "(a chain of K images: N + K). Each haystack frame is stored once and reused by every cell.",
                (
                    "The headline is the accuracy on the whole grid: a cell the model's server refused as too long "
                    "counts "
                    "as a miss. Beside it: the accuracy within the model's limit, the share of the grid answered and "
                    "the "
                    'largest N answered. The heatmap shows a refused cell as "over limit".',
                    'Option letters are read from "B", "(B)", "B) white", "B. <the option\'s text>", "Option B", '
                    '"the answer is B" or the option\'s text; "a" or "A" opening a sentence ("a square") is not read '
                    "as a letter. A short answer counts when the reply states it as a word or number.",
                    "The official harnesses insert needles as embeddings inside the model and score by teacher "
                    "forcing; "
                    "here they are real frames and the model answers freely, so scores are comparable across servers "
                    "but "
                    "not to those papers' figures. The method card lists every difference.",
                ),
            )
        ]

    def method_card(self) -> list[ProtocolRow]:
        return card.rows(self.evaluator.key, self.evaluator.mode)

    def dataset_notes(self, items: Sequence[Item]) -> list[MethodNote]:
        """The version's grid (its preset, or custom) and the formats its records came in."""
        if not items:
            return []
        grids = sorted({str(i.payload.get("grid", "custom")) for i in items})
        formats = sorted({str(i.payload.get("format", "platform")) for i in items})
        frames = sorted({int(i.slices["frames"]) for i in items})
        depths = sorted({i.slices["depth"] for i in items if "depth" in i.slices}, key=float)
        points = [
            f"Grid: {', '.join(grids)} ({card.grid_words(grids)})",
            f"N: {', '.join(f'{n:,}' for n in frames)} haystack frames",
        ]
        if depths:
            points.append(f"Depths: {', '.join(depths)} %")
        points.append(f"Records in the format of: {', '.join(card.FORMAT_NAMES.get(f, f) for f in formats)}")
        return [MethodNote("This version's grid", "The grid every model of this version is ranked on.", tuple(points))]


class SinglePresentation(_VideoPresentation):
    """The single-hop board: N and depth as filters, accuracy per depth x N cell as a heatmap."""

    slice_dimensions = (SliceDimension("frames", "Frames (N)"), SliceDimension("depth", "Depth (%)"))
    heatmap = Heatmap("depth", "frames", "accuracy", 1.0)


class MultiPresentation(_VideoPresentation):
    """The multi-hop board: N and the hop as filters, accuracy against N as lines, each hop shown with the other."""

    slice_dimensions = (
        SliceDimension("frames", "Frames (N)"),
        SliceDimension("question", "Question", ("q1", "q2"), (("", "Q1 (first hop)"), ("", "Q2 (second hop)"))),
    )
    lines = LineChart("frames", ("accuracy", "both"))

    def companion_items(self, item_id: str) -> list[str]:
        """The chain's other hop at the same N (each of its rotations, when asked circularly)."""
        head, _, question = self.evaluator._base(item_id).rpartition("/")
        other = {"q1": "q2", "q2": "q1"}.get(question)
        return [f"{head}/{other}{suffix}" for suffix in ["", *(f"/r{k}" for k in range(len(LETTERS)))]] if other else []
