"""Plain data types that cross process boundaries (site, worker, command line, model server).

Everything here is JSON-serialisable through ``to_dict``/``from_dict`` so it can travel through
Celery messages, predictions files and the database without pickling.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


class DatasetError(ValueError):
    """A dataset file or release is malformed. The message names the record and the field."""


class InfrastructureError(RuntimeError):
    """The machine, not the submission, is at fault (a sandbox that cannot start, a missing
    toolchain...). Workers retry such runs and never charge the submitter for them."""


class PredictionsError(ValueError):
    """A predictions file is malformed. ``problems`` lists every (line, field, message) found."""

    def __init__(self, problems: list[tuple[int | None, str | None, str]]):
        self.problems = problems
        super().__init__("; ".join(_describe(p) for p in problems[:20]))


def _describe(problem: tuple[int | None, str | None, str]) -> str:
    line, fld, message = problem
    where = f"line {line}" if line is not None else "file"
    if fld:
        where += f", field '{fld}'"
    return f"{where}: {message}"


@dataclass(frozen=True)
class Item:
    """One scorable unit of a dataset version (for Multi-LCB: one problem in one language).

    ``slices`` are the dimensions a leaderboard can filter or group by (language, difficulty...);
    ``payload`` is the benchmark's own content (statement, tests, image keys...), JSON only.

    ``shared_key`` names a part of the payload this item has in common with other items (a Multi-LCB
    problem's statement and tests, the same for its twelve language items): the payload fields
    ``shared_fields`` (sorted) are written once under that key in an items file and merged back into
    ``payload`` when an item is read (``evaluators.core.itemstore``). In memory ``payload`` is always whole.
    """

    id: str
    slices: dict[str, str]
    payload: dict[str, Any]
    shared_key: str = ""
    shared_fields: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "slices": dict(self.slices), "payload": self.payload}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        return cls(
            id=str(data["id"]),
            slices={str(k): str(v) for k, v in data.get("slices", {}).items()},
            payload=dict(data.get("payload", {})),
        )


@dataclass(frozen=True)
class ModelRequest:
    """One chat-completions request an evaluator wants a model to answer for an item.

    ``stage`` is 0 for what ``build_requests`` returns; a follow-up turn of a multi-turn item is stage
    1, 2... and answers one sample, ``sample_index``, of its conversation (n is then 1). The n answers
    of a stage-0 request are samples ``sample_index`` .. ``sample_index + n - 1``."""

    item_id: str
    messages: list[dict[str, Any]]
    n: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 4096
    extra: dict[str, Any] = field(default_factory=dict)
    sample_index: int = 0
    stage: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: why an output is not a plain answer, as evaluators receive it (``Prediction.error_kind``):
#: the endpoint refused the request, the answer was cut off at max_tokens (its text is kept), empty,
#: timed out, did not satisfy its format constraint, or a stage failed otherwise; over_limit: the server
#: refused the request for its length (its context, or the images per prompt it allows)
OUTPUT_ERROR_KINDS: tuple[str, ...] = ("refused", "cut_off", "empty", "timeout", "invalid", "failed", "over_limit")


@dataclass(frozen=True)
class Stage:
    """One exchange of a multi-turn item, as kept in its transcript.

    ``messages`` are what this stage added to the conversation (stage 0: the whole first request;
    later stages: the new user turn, holding e.g. a program's output), ``tool`` what the platform ran
    on the previous answer to make them (``{"name": "python", "code": ..., "status": ..., ...}``),
    ``answer`` the model's reply and ``error_kind``/``error`` why it is not a plain answer."""

    messages: list[dict[str, Any]]
    answer: str
    tool: dict[str, Any] = field(default_factory=dict)
    error_kind: str = ""
    error: str = ""
    finish_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Stage:
        return cls(
            messages=list(data.get("messages", [])),
            answer=str(data.get("answer", "")),
            tool=dict(data.get("tool") or {}),
            error_kind=str(data.get("error_kind", "")),
            error=str(data.get("error", "")),
            finish_reason=str(data.get("finish_reason", "")),
        )


@dataclass(frozen=True)
class FollowUp:
    """What an evaluator's ``Conversation.follow_up`` asks next: the messages to add after the model's last
    answer, the tool run that produced them (kept in the transcript), and optionally its own
    ``max_tokens`` (otherwise the first request's). With ``fresh`` the messages are sent alone, as a new
    conversation (CausalPitfalls' released final prompt restates the question instead of continuing)."""

    messages: list[dict[str, Any]]
    tool: dict[str, Any] = field(default_factory=dict)
    max_tokens: int | None = None
    fresh: bool = False


@dataclass(frozen=True)
class Prediction:
    """One model output for an item. ``sample_index`` distinguishes the n samples of pass@k.

    ``error_kind`` (one of OUTPUT_ERROR_KINDS) and ``error`` say why the output is not a plain answer
    (an evaluator counts coverage with them; a cut-off answer keeps its text); ``transcript`` holds
    every stage of a multi-turn item, ``output`` being the last stage's answer."""

    item_id: str
    output: str
    sample_index: int = 0
    error_kind: str = ""
    error: str = ""
    transcript: tuple[Stage, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"item_id": self.item_id, "sample_index": self.sample_index, "output": self.output}
        if self.error_kind:
            data["error_kind"], data["error"] = self.error_kind, self.error
        if self.transcript:
            data["transcript"] = [stage.to_dict() for stage in self.transcript]
        return data


@dataclass(frozen=True)
class ItemScore:
    """What an evaluator concluded about one item: numeric scores, slice keys and a JSON detail
    (verdicts, judge calls, extracted answers) that the submission page shows."""

    item_id: str
    slices: dict[str, str]
    scores: dict[str, float]
    detail: dict[str, Any] = field(default_factory=dict)
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemScore:
        return cls(
            item_id=data["item_id"],
            slices=dict(data.get("slices", {})),
            scores={k: float(v) for k, v in data.get("scores", {}).items()},
            detail=dict(data.get("detail", {})),
            error=str(data.get("error", "")),
        )


@dataclass(frozen=True)
class MetricValue:
    """An aggregate over items: value with its 95% interval and the number of items behind it.

    ``slice`` is empty for the headline, or e.g. ``{"language": "rust"}`` for a per-slice figure.
    """

    key: str
    value: float
    ci_low: float | None
    ci_high: float | None
    n: int
    slice: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricValue:
        return cls(**data)


@dataclass(frozen=True)
class MetricColumn:
    """A leaderboard column an evaluator publishes."""

    key: str
    label: str
    higher_is_better: bool = True
    format: str = "percent"  # percent | number | count (a whole number, as "largest N": shown without decimals)
    primary: bool = False
    #: the header of a narrow column where the board is wide ("" : the label), the label being its title
    short: str = ""


@dataclass(frozen=True)
class SliceDimension:
    """A dimension a leaderboard can be filtered by, with its values in display order, and how a column
    header names each value (``value_labels``: (abbreviation, full name) in the values' order, "" for no
    abbreviation; none: the value as it is, for values that are words already)."""

    key: str
    label: str
    values: tuple[str, ...] = ()
    value_labels: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.value_labels and len(self.value_labels) != len(self.values):
            raise ValueError(
                f"SliceDimension '{self.key}': {len(self.value_labels)} value_labels for {len(self.values)} values"
            )


@dataclass(frozen=True)
class MethodNote:
    """One part of how a benchmark's scores are obtained, shown on its leaderboard page (a heading,
    a paragraph, and optional points such as one line per language)."""

    heading: str
    text: str
    points: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProtocolRow:
    """One line of a benchmark's method card: a protocol element (a prompt, the judge, a retry policy,
    the aggregation, a count), what the paper or the authors' released code does, what this platform
    does, and why they differ. ``why`` is empty only where ``here`` is the released protocol; a row
    that differs without a reason is refused, so a deviation cannot be listed without its reason."""

    element: str
    released: str
    here: str
    why: str = ""
    #: where the released side was read (a file of the authors' repository, a table of the paper)
    source: str = ""

    def __post_init__(self) -> None:
        for name in ("element", "released", "here"):
            if not getattr(self, name).strip():
                raise ValueError(f"ProtocolRow.{name}: empty")
        if self.deviates and not self.why.strip():
            raise ValueError(f"ProtocolRow '{self.element}': differs from the release, so 'why' must say why")

    @property
    def deviates(self) -> bool:
        """True where this platform does not do what the release does (``here`` is not "as released")."""
        return self.here.strip().lower() not in AS_RELEASED

    def to_dict(self) -> dict[str, str | bool]:
        return {
            "element": self.element,
            "released": self.released,
            "here": self.here,
            "why": self.why,
            "source": self.source,
            "deviates": self.deviates,
        }


#: what a method card's ``here`` says when the platform does exactly what the release does
AS_RELEASED = frozenset({"as released", "same", "as in the paper"})


@dataclass(frozen=True)
class ServerOptions:
    """What an evaluator needs from a model server it does not configure itself: how many images (or
    videos) one prompt may hold and a context long enough for its prompts (None: the model's own).
    A generation job serving several benchmarks takes the largest of each (``merged``), passes them to
    the server (``vllm serve --limit-mm-per-prompt``, ``--max-model-len``) and records them with the run."""

    images_per_prompt: int = 0
    videos_per_prompt: int = 0
    max_model_len: int | None = None
    #: a video part must reach the model with every frame (vLLM resamples to 32 frames by default)
    video_all_frames: bool = False

    def __post_init__(self) -> None:
        for name in ("images_per_prompt", "videos_per_prompt"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ValueError(f"{name}: a whole number of 0 or more")
        if self.max_model_len is not None and (not isinstance(self.max_model_len, int) or self.max_model_len < 1):
            raise ValueError("max_model_len: a positive whole number, or None for the model's own")

    def merged(self, other: ServerOptions) -> ServerOptions:
        lengths = [n for n in (self.max_model_len, other.max_model_len) if n is not None]
        return ServerOptions(
            images_per_prompt=max(self.images_per_prompt, other.images_per_prompt),
            videos_per_prompt=max(self.videos_per_prompt, other.videos_per_prompt),
            max_model_len=max(lengths) if lengths else None,
            video_all_frames=self.video_all_frames or other.video_all_frames,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServerOptions:
        return cls(
            **{
                k: data[k]
                for k in ("images_per_prompt", "videos_per_prompt", "max_model_len", "video_all_frames")
                if k in data
            }
        )
