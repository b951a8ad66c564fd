"""The Multi-hop Needle-in-a-Video-Haystack evaluators: two leaderboards over one release.

- ``video-niah-single``: a needle frame at a depth of N haystack frames; a question about it. Cell
  accuracy per (N, depth), the headline the mean over cells, and the largest N whose accuracy
  (over depths) still reaches 0.9. Shown as a depth x N heatmap on each model's row.
- ``video-niah-multi``: a chain of clue frames with decoys spread over N frames; Q1 asks what the
  chain's last frame shows, Q2 a question about it. Per N: (Q1 + Q2) / 2 and both correct. Shown as
  accuracy against N.

The frames reach the model as a list of images (the default: every frame arrives), or with the setting
``{"mode": "video"}`` as one MP4 whose frames the server must not resample (``server_options`` asks vLLM
for all frames); the mode is recorded with the run. N is the number of frames given to the model. A
request the server refuses for its length (context or images per prompt) is "over the model's limit":
counted per cell, never as a wrong answer. Option letters come from ``evaluators.core.answers``;
short answers ("Yellow", "200") count when the answer states them.
"""
from __future__ import annotations

import copy
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Self, Sequence

from evaluators.core.answers import LETTERS, option_letter, states_answer
from evaluators.core.evaluator import Evaluator, Heatmap, Lines, SettingsRefused
from evaluators.core.media import MediaSink, frames_part, sink_or_hashing
from evaluators.core.settings import generation_settings, item_seed
from evaluators.core.stats import ratio_with_ci
from evaluators.core.types import (Item, ItemScore, MethodNote, MetricColumn, MetricValue, ModelRequest, Prediction,
                                   ServerOptions, SliceDimension)
from evaluators.video_niah.release import FRAME_MAX_SIDE, multi_hop_items, single_hop_items

DEFAULT_GENERATION: dict[str, Any] = {"n": 1, "temperature": 0.0, "top_p": 1.0, "max_tokens": 16, "seed": 0}
MODES = ("images", "video")
#: the share a model must still reach for "largest N at 0.9"
THRESHOLD = 0.9
OVER_LIMIT = "over_limit"


class _VideoNIAH(Evaluator):
    #: frames go as images by default; the video mode needs a model that takes video
    modality = "image"
    read_items: Callable[[Path, MediaSink], Iterator[Item]]

    def __init__(self, mode: str = "images") -> None:
        self.mode = mode

    def configured(self, settings: Mapping[str, Any]) -> Self:
        """A copy with the run's settings: ``mode`` (images or video) and nothing else."""
        unknown = set(settings) - {"mode"}
        if unknown:
            raise SettingsRefused(f"unknown setting(s) {', '.join(sorted(unknown))} (known: mode)")
        mode = settings.get("mode", "images")
        if mode not in MODES:
            raise SettingsRefused(f"setting 'mode': {mode!r} is not one of {', '.join(MODES)}")
        configured = copy.copy(self)
        configured.mode = mode
        configured.modality = "video" if mode == "video" else "image"
        return configured

    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return type(self).read_items(Path(path), sink_or_hashing(media))

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = generation_settings(settings, DEFAULT_GENERATION)
        payload = item.payload
        frames = frames_part(payload["haystack"], payload["count"], {int(p): k for p, k in payload["insert"].items()},
                             as_video=self.mode == "video")
        lines = [f"These are {payload['count']} frames of a video, in order, one per second.", payload["question"]]
        if payload["options"]:
            lines += [f"{letter}. {option}" for letter, option in zip(LETTERS, payload["options"])]
            lines.append("Answer with the option's letter (A, B, C or D) only.")
        else:
            lines.append("Answer with a single word or number only.")
        return [ModelRequest(item_id=item.id, messages=[{"role": "user", "content": [frames, {"type": "text", "text": "\n".join(lines)}]}],
                             n=merged["n"], temperature=merged["temperature"], top_p=merged["top_p"],
                             max_tokens=merged["max_tokens"], extra={"seed": item_seed(merged["seed"], item.id)})]

    def server_options(self, settings: dict[str, Any]) -> ServerOptions:
        """Video mode asks the server to keep every frame of the video; the images or videos per prompt
        are counted from the requests themselves (leaderboard.submissions.generation.plans)."""
        return ServerOptions(video_all_frames=self.mode == "video")

    def environment(self) -> dict[str, str]:
        import av

        return {"mode": self.mode, "pyav": av.__version__, "frames": f"sampled at 1 per second, at most {FRAME_MAX_SIDE} px, JPEG"}

    # ----------------------------------------------------------------------------- scoring
    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        ordered = sorted(predictions, key=lambda p: p.sample_index)
        answer = ordered[0] if ordered else None
        payload = item.payload
        detail: dict[str, Any] = {"answer": (answer.output if answer else "")[:2000], "gold": payload["answer"],
                                  "error_kind": answer.error_kind if answer else "missing"}
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

    @staticmethod
    def _base(item_id: str) -> str:
        """The item without its rotation: circular evaluation counts a question once, right only if every rotation is."""
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
                merged.append(ItemScore(base, group[0].slices, {"correct": float(all(s.scores["correct"] for s in group)),
                                                                OVER_LIMIT: 0.0}))
        return merged

    @staticmethod
    def _cluster(score: ItemScore) -> str:
        return score.item_id.split("/")[1]  # the needle or the chain

    def _mean(self, key: str, scores: Sequence[ItemScore], group: dict[str, str], seed: int) -> MetricValue | None:
        answered = [s for s in scores if key in s.scores]
        if not answered:
            return None
        value, low, high = ratio_with_ci([s.scores[key] for s in answered], [1.0] * len(answered),
                                         [self._cluster(s) for s in answered], seed=seed)
        return MetricValue(key if key != "correct" else "accuracy", value, low, high, len(answered), dict(group))

    def _largest_n(self, by_n: dict[int, float]) -> MetricValue | None:
        """The largest N whose accuracy reaches the threshold (0 when none does)."""
        reached = [n for n, value in by_n.items() if value >= THRESHOLD]
        return MetricValue("frames_at_90", float(max(reached, default=0)), None, None, len(by_n)) if by_n else None


    def method_notes(self) -> list[MethodNote]:
        sent = ("one MP4 video per request, every frame kept (vLLM's frame sampling off)" if self.mode == "video"
                else "a list of images, one per frame")
        return [MethodNote(
            "How the frames are given",
            f"This site sends the frames as {sent} (mode {self.mode}). N is the number of frames given to the model: frames of the haystack video sampled at one per second, "
            "with the needle (or the chain's frames) placed among them, so that no sampling can skip it. By default "
            "they arrive as a list of images; the video mode sends one MP4 and asks the server not to resample it "
            "(vLLM: all frames). Each haystack frame is stored once and reused by every cell.",
            ("A request the server refuses for its length (its context or its images per prompt) is shown as over the "
             "model's limit for that cell, not counted as a wrong answer.",
             "Option letters are read from \"B\", \"<B>\", \"B. red\", \"Option B\", \"the answer is B\" or the option's "
             "text; a short answer counts when the reply states it as a word or number.",
             "The official harnesses insert needles as embeddings inside the model; here they are real frames, "
             "so scores are comparable across servers but not to those papers' figures."))]


class VideoNIAHSingleEvaluator(_VideoNIAH):
    """Single hop (key ``video-niah-single``)."""

    key = "video-niah-single"
    metric_columns = (
        MetricColumn("accuracy", "Accuracy (mean over cells)", primary=True),
        MetricColumn("frames_at_90", "Largest N at 0.9", format="number"),
        MetricColumn(OVER_LIMIT, "Over the model's limit", higher_is_better=False),
    )
    slice_dimensions = (SliceDimension("frames", "Frames (N)"), SliceDimension("depth", "Depth (%)"))
    read_items = staticmethod(single_hop_items)
    heatmap = Heatmap("depth", "frames", "accuracy", 1.0)

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        questions = self._questions([s for s in item_scores if not s.error])
        out: list[MetricValue] = []
        by_n: dict[int, float] = {}
        cells = sorted({(s.slices["frames"], s.slices["depth"]) for s in questions}, key=lambda c: (int(c[0]), float(c[1])))
        groups: list[dict[str, str]] = [{}] + [{"frames": n} for n in sorted({c[0] for c in cells}, key=int)] + \
                 [{"depth": d} for d in sorted({c[1] for c in cells}, key=float)] + [{"frames": n, "depth": d} for n, d in cells]
        for group in groups:
            subset = [s for s in questions if all(s.slices.get(k) == v for k, v in group.items())]
            for metric in (self._mean("correct", subset, group, seed), self._mean(OVER_LIMIT, subset, group, seed)):
                if metric is not None:
                    out.append(metric)
                    if metric.key == "accuracy" and set(group) == {"frames"}:
                        by_n[int(group["frames"])] = metric.value
        largest = self._largest_n(by_n)
        return out + ([largest] if largest else [])


class VideoNIAHMultiEvaluator(_VideoNIAH):
    """Multi hop (key ``video-niah-multi``)."""

    key = "video-niah-multi"
    metric_columns = (
        MetricColumn("accuracy", "(Q1 + Q2) / 2", primary=True),
        MetricColumn("both", "Both correct"),
        MetricColumn("frames_at_90", "Largest N at 0.9", format="number"),
        MetricColumn(OVER_LIMIT, "Over the model's limit", higher_is_better=False),
    )
    slice_dimensions = (SliceDimension("frames", "Frames (N)"), SliceDimension("question", "Question", ("q1", "q2")))
    read_items = staticmethod(multi_hop_items)
    lines = Lines("frames", ("accuracy", "both"))

    @staticmethod
    def _pair(score: ItemScore) -> str:
        return score.item_id.rsplit("/", 1)[0]  # multi/<chain>/<N>

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        questions = self._questions([s for s in item_scores if not s.error])
        pairs: dict[str, list[ItemScore]] = defaultdict(list)
        for score in questions:
            pairs[self._pair(score)].append(score)
        both = [ItemScore(key, {"frames": group[0].slices["frames"]},
                          {"both": float(len(group) == 2 and all(s.scores.get("correct") for s in group))})
                for key, group in pairs.items() if not any(s.scores.get(OVER_LIMIT) for s in group)]
        out: list[MetricValue] = []
        by_n: dict[int, float] = {}
        groups: list[dict[str, str]] = [{}] + [{"frames": n} for n in sorted({s.slices["frames"] for s in questions}, key=int)] + \
                 [{"question": q} for q in ("q1", "q2")]
        for group in groups:
            subset = [s for s in questions if all(s.slices.get(k) == v for k, v in group.items())]
            metrics = [self._mean("correct", subset, group, seed), self._mean(OVER_LIMIT, subset, group, seed)]
            if "question" not in group:
                metrics.append(self._mean("both", [b for b in both if all(b.slices.get(k) == v for k, v in group.items())],
                                          group, seed))
            for metric in metrics:
                if metric is not None:
                    out.append(metric)
                    if metric.key == "accuracy" and set(group) == {"frames"}:
                        by_n[int(group["frames"])] = metric.value
        largest = self._largest_n(by_n)
        return out + ([largest] if largest else [])
