"""The Evaluator base class: what every benchmark package implements, and the capabilities it may add.

An evaluator turns a benchmark's released files into ``Item`` rows (``import_release``), builds the
model requests for an item (``build_requests``), scores an item's predictions (``score_item``) and
aggregates item scores into metrics with 95% intervals (``aggregate``). Items and scores are plain
data, so the same code runs in a worker, in a test and on the command line. A run's scores reach the
metrics through an ``Aggregation`` (``Evaluator.aggregation``), fed one score at a time as it is
written, so that a benchmark whose metrics need a few numbers per item keeps only those, never the
run's results.

The base class holds scoring and nothing else (twelve members, ``tests/core/test_evaluator_surface``).
What only some benchmarks need is a typed capability object that a typed method returns, with a
default that means "this benchmark does not use it", so the site, the workers and the command line
call it directly (``mypy --strict`` checks every call) and never probe with ``getattr``:

- ``generation()`` -> ``Generation``: the model's modality, what its server must allow and, for a
  multi-turn benchmark, its ``Conversation`` (the platform's turns between the model's answers);
- ``judging()`` -> ``JudgeUse`` or None: the judge model a benchmark is scored by (benchmarks derive
  from ``ScoredByJudge``, which gives it);
- ``presentation()`` -> ``Presentation``: what the site shows and ships beyond the scores (notes,
  protocol card, filters, heatmap, the sample release, example and baseline predictions).

The registry (``evaluators.core.registry``) names each benchmark and hands out configured instances.
"""

from __future__ import annotations

import copy
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

from evaluators.core.media import MediaSink
from evaluators.core.types import (
    FollowUp,
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
    Stage,
)

if TYPE_CHECKING:  # the engine's judges import the core; the core names them only for the type checker
    from evaluators.llm.judges import Judge
    from evaluators.llm.validation import JudgeCheck


@dataclass(frozen=True)
class Heatmap:
    """A two-way breakdown on each model's leaderboard row and run page: a row per value of the slice
    dimension ``rows``, a column per value of ``columns``, each cell the per-slice ``metric`` shaded by
    its value over ``scale`` (1.0 for a share, 100.0 for a score out of 100)."""

    rows: str
    columns: str
    metric: str
    scale: float


@dataclass(frozen=True)
class LineChart:
    """Metrics (0..1) drawn against a numeric slice dimension, one line each, with their table."""

    dimension: str
    metrics: tuple[str, ...]


class Aggregation(ABC):
    """A run's metrics from its item scores fed one at a time (``add``, in any order), asked once at the
    end (``metrics``): the command line and the workers feed each score as it is written, and what is
    kept between is the aggregation's business (Multi-LCB keeps a few numbers per problem and language;
    the default, ``KeptScores``, every score)."""

    @abstractmethod
    def add(self, score: ItemScore) -> None:
        """Take one item's score into account."""

    @abstractmethod
    def metrics(self) -> list[MetricValue]:
        """The metrics of every score added, as ``Evaluator.aggregate`` gives them."""


class KeptScores(Aggregation):
    """Every score kept and handed to ``evaluator.aggregate`` at the end, in the dataset's ``order`` of
    item ids when one is given (an aggregate whose bootstrap draws items by position depends on it),
    else in the order added.

    With ``keep_detail`` a score is kept as only what the aggregate reads: its id, scores and error, its
    slices (one dict for every score with the same ones) and ``keep_detail(score.detail)``, the part of
    the detail the aggregate reads (the judge calls' fallbacks, BLEU statistics; ``{}``: none), never
    the samples or the judge's texts. The aggregate gets the same numbers in the same order, so the
    same metrics, from a few hundred bytes an item."""

    def __init__(
        self,
        evaluator: Evaluator,
        *,
        seed: int,
        order: Sequence[str] | None,
        keep_detail: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self._evaluator, self._seed, self._order, self._keep_detail = evaluator, seed, order, keep_detail
        self._scores: list[ItemScore] = []
        self._slices: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}

    def add(self, score: ItemScore) -> None:
        if self._keep_detail is not None:
            slices = self._slices.setdefault(tuple(score.slices.items()), score.slices)
            score = ItemScore(score.item_id, slices, score.scores, self._keep_detail(score.detail), score.error)
        self._scores.append(score)

    def metrics(self) -> list[MetricValue]:
        scores = self._scores
        if self._order is not None:
            position = {item_id: i for i, item_id in enumerate(self._order)}
            scores = sorted(scores, key=lambda s: position.get(s.item_id, len(position)))
        return self._evaluator.aggregate(scores, seed=self._seed)


class SettingsRefused(ValueError):
    """A run's settings that the evaluator does not take, or takes with another value's type."""


def one_choice(settings: Mapping[str, Any], name: str, choices: Sequence[str], default: str) -> str:
    """The value of the one setting a benchmark takes, ``name``, among ``choices`` (``default`` when
    absent); SettingsRefused names any other key, or a value that is not among the choices."""
    unknown = set(settings) - {name}
    if unknown:
        raise SettingsRefused(f"unknown setting(s) {', '.join(sorted(unknown))} (known: {name})")
    value = settings.get(name, default)
    if value not in choices:
        raise SettingsRefused(f"setting '{name}': {value!r} is not one of {', '.join(choices)}")
    return str(value)


class Evaluator(ABC):
    """One benchmark's scoring. Subclasses set ``key`` and ``metric_columns`` and implement the four
    abstract methods; the other members have defaults, and a benchmark overrides a capability method
    (``generation``, ``judging``, ``presentation``) only where it needs one."""

    #: the registry key, equal to the site's Benchmark ``evaluator_key``
    key: ClassVar[str] = ""
    #: leaderboard columns; exactly one is primary
    metric_columns: Sequence[MetricColumn] = ()

    # ----------------------------------------------------------------------------- required
    @abstractmethod
    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        """Read the benchmark's released format and yield normalized items. Raise DatasetError
        naming the record and field for anything malformed. A benchmark with images hands each to
        ``media`` (``put``: kept once by content hash; None: only hashed) and keeps its key in the
        item's payload; text benchmarks ignore it (evaluators.core.media)."""

    @abstractmethod
    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        """The chat requests a model must answer for this item, under a run's generation settings (the
        ones given of ``GenerationSettings``, evaluators.core.settings)."""

    @abstractmethod
    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        """Score every prediction of one item. Must not raise on bad model output: a wrong or
        unparsable answer is a score, not an error. ``Prediction.error_kind`` says why an output is not
        a plain answer (refused, cut off, empty...), for coverage counts. A judged evaluator asks
        through ``self.require_judge().ask_many`` (``ScoredByJudge``), returns every JudgeBatch's
        to_dict() in ``detail["judgements"]`` and lets JudgeUnavailable propagate (the run is retried)."""

    @abstractmethod
    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        """Headline and per-slice metrics with 95% intervals."""

    def aggregation(self, *, seed: int = 0, order: Sequence[str] | None = None) -> Aggregation:
        """The metrics of a run's scores fed one at a time: by default every score kept whole for
        ``aggregate`` (sorted in ``order``, the dataset's item ids, when given). A benchmark whose
        metrics need only a few numbers per item returns ``KeptScores`` with a ``keep_detail`` (or an
        aggregation of its own), so that scoring a release twice the size holds no more memory."""
        return KeptScores(self, seed=seed, order=order)

    def needs_shared_part(self, predictions: Sequence[Prediction]) -> bool:
        """Whether scoring ``predictions`` reads the fields an item shares with others (a Multi-LCB
        problem's statement and tests: ``Item.shared_fields``). False lets the items file hand the item
        over without decoding its shared part (``ItemsFile.get_many(..., without_shared=)``): its payload
        then holds its own fields only. By default True."""
        return True

    # ----------------------------------------------------------------------------- set-up
    def configured(self, settings: Mapping[str, Any]) -> Self:
        """A copy with validated per-run settings. The default takes none: any key is refused."""
        if settings:
            raise SettingsRefused(f"benchmark '{self.key}' takes no settings (got {', '.join(sorted(settings))})")
        return self

    def environment(self) -> dict[str, str]:
        """Versions of whatever the scores depend on beyond Python (compilers, judges...)."""
        return {}

    # ----------------------------------------------------------------------------- capabilities
    def generation(self) -> Generation:
        """What answering this benchmark takes (``Generation``): a text model, one turn, nothing asked
        of the server, unless a benchmark says otherwise."""
        return Generation()

    def judging(self) -> JudgeUse | None:
        """The judge model this benchmark is scored by (``JudgeUse``); None: no judge. Benchmarks with
        one derive from ``ScoredByJudge``."""
        return None

    def presentation(self) -> Presentation[Evaluator]:
        """What the site shows and ships beyond the scores (``Presentation``): by default nothing more
        than the metrics, and the sample release at ``data/sample`` beside the evaluator's module."""
        return Presentation(self)


E = TypeVar("E", bound=Evaluator, covariant=True)


class Conversation(ABC):
    """A multi-turn benchmark's protocol: the platform takes a turn (a program run, a tool's answer)
    between the model's answers. The generating worker asks ``follow_up`` after each stored stage."""

    #: why a predictions file with a line without a transcript is refused (the platform must run the model)
    transcript_reason: ClassVar[str] = "This benchmark's answers come from a conversation with the platform."
    #: whether the programs the platform runs between turns import the data sandbox's analysis libraries
    #: (``make run`` installs them last: a run of this benchmark waits for them)
    uses_analysis_libraries: ClassVar[bool] = False

    @abstractmethod
    def max_stages(self, settings: dict[str, Any]) -> int:
        """The most stages ``follow_up`` asks for (the progress bar's unit)."""

    @abstractmethod
    def follow_up(
        self, item: Item, transcript: Sequence[Stage], sample_index: int, settings: dict[str, Any]
    ) -> FollowUp | None:
        """A multi-turn item's next turn after ``transcript`` (the last stage just answered), or None
        when the item is finished. Deterministic: a resumed job asks again for stages it had not stored.
        Called from the generating worker's tool threads (it may run sandboxed code); an
        InfrastructureError it raises retries the job. The prediction's ``output`` is the last answer,
        its ``transcript`` every stage (evaluators.core.turns)."""


@dataclass(frozen=True)
class Generation:
    """What answering a benchmark takes of a model and of the platform."""

    #: what the benchmark needs from a model: "text", "image" or "video" (a capability order: a model
    #: enters the benchmarks its own modality covers, evaluators.core.modality); a setting may change it
    #: (Video NIAH's video mode)
    modality: str = "text"
    #: what a self-hosted model's server must allow (images per prompt, every video frame), passed to
    #: the server and recorded with the run; the planner adds what the requests themselves hold
    server: ServerOptions = ServerOptions()  # noqa: RUF009 - frozen: the one default is never changed
    #: a multi-turn benchmark's turns; None: one request per sample, answered once
    conversation: Conversation | None = None

    def transcript_required(self) -> str:
        """Why a predictions file must carry a transcript on every line ("": it need not)."""
        return self.conversation.transcript_reason if self.conversation is not None else ""

    def uses_analysis_libraries(self) -> bool:
        """Whether answering runs programs that import the data sandbox's analysis libraries."""
        return self.conversation is not None and self.conversation.uses_analysis_libraries


ValidateJudge = Callable[[Sequence[Item], "int | None", "Callable[[int, int], None] | None"], "JudgeCheck | None"]


@dataclass(frozen=True)
class JudgeUse:
    """How a benchmark is scored by a judge model. The worker (and ``python -m evaluators score
    --judge``) builds the judge of ``role``, a key of LEADERBOARD_JUDGES, and scores with ``judged(judge)``."""

    #: the key of the benchmark's judge in LEADERBOARD_JUDGES
    role: str
    #: the judge this copy asks (None until ``judged`` gave one)
    judge: Judge | None
    #: a copy of the evaluator asking ``judge`` (an evaluators.llm.judges.Judge)
    judged: Callable[[Judge], Evaluator]
    #: measure the given judge against what a dataset version's items say is right; ``limit`` bounds the
    #: work, ``progress`` hears (done, total). None: nothing to validate a judge on. JudgeUnavailable propagates.
    validate: ValidateJudge


class ScoredByJudge(Evaluator):
    """An evaluator scored by a judge model: ``judge_role`` names it, the worker hands one over through
    ``judging().judged``, and ``score_item`` asks it through ``require_judge``."""

    #: the key of the judge in LEADERBOARD_JUDGES
    judge_role: ClassVar[str] = ""
    #: the judge this copy asks (None until ``with_judge``)
    judge: Judge | None = None

    def judging(self) -> JudgeUse:
        return JudgeUse(self.judge_role, self.judge, self.with_judge, self.validate_judge)

    def with_judge(self, judge: Judge) -> Self:
        """A copy that asks ``judge``."""
        judged = copy.copy(self)
        judged.judge = judge
        return judged

    def require_judge(self) -> Judge:
        """The judge ``with_judge`` gave; a plain error naming the role when scoring was started without."""
        if self.judge is None:
            raise RuntimeError(f"{self.key} needs a judge: call with_judge(...) first (judge_role {self.judge_role!r})")
        return self.judge

    def validate_judge(
        self, items: Sequence[Item], limit: int | None = None, progress: Callable[[int, int], None] | None = None
    ) -> JudgeCheck | None:
        """Measure the judge ``with_judge`` gave against what ``items`` (the dataset version) say is right
        (``evaluators.llm.validation``); ``limit`` bounds the work (items or tasks, spread over the release).
        None: nothing to validate one on. A judged benchmark's board ranks only figures whose judge passed."""
        return None


class Presentation(Generic[E]):
    """What a benchmark shows and ships beyond its scores, for the configured ``evaluator``: the
    site's pages (notes, protocol card, filters, heatmap or lines, words for item keys), the per-item
    page's marks, the submit page's expected work, and the files it ships (the sample release,
    example and baseline predictions). Every default means "none"; a benchmark subclasses it and
    returns its own from ``Evaluator.presentation``."""

    #: dimensions a leaderboard can filter by
    slice_dimensions: Sequence[SliceDimension] = ()
    #: words for the keys an item result carries beyond the columns and dimensions (its extra scores and
    #: slices, such as OCR's "char_edits"), shown on the per-item page instead of the key
    item_labels: Mapping[str, str] = {}
    #: words for the values of an item slice that is not a dimension: slice key -> value -> words
    item_value_labels: Mapping[str, Mapping[str, str]] = {}
    #: samples per item expected by default (pass@k needs several), for the submit page
    default_samples: int = 1
    #: the sample release shipped with the package, relative to the evaluator's module directory
    sample_path: str = "data/sample"
    #: an item slice holding a date: enables the leaderboard's date window
    date_slice: str | None = None
    #: pictures with a table behind them on every model's row and run page (submissions/charts.py)
    heatmap: Heatmap | None = None
    lines: LineChart | None = None

    def __init__(self, evaluator: E) -> None:
        self.evaluator = evaluator

    def sample_dataset(self) -> Path:
        """Path of the sample release shipped with the package (for ``make run`` and the tests):
        ``sample_path`` beside the module of the nearest evaluator class in the hierarchy that has it (a
        subclass living elsewhere, such as a test's variant, keeps its parent's sample)."""
        found = [
            Path(sys.modules[cls.__module__].__file__ or "").resolve().parent / self.sample_path
            for cls in type(self.evaluator).__mro__
            if issubclass(cls, Evaluator) and cls not in _BASES
        ]
        return next((path for path in found if path.exists()), found[0])

    def method_notes(self) -> list[MethodNote]:
        """How scores are obtained (rules, toolchains), shown on the benchmark's page."""
        return []

    def method_card(self) -> list[ProtocolRow]:
        """The benchmark's protocol beside the authors' (the paper and their released code), one row per
        element: prompts, generation settings, the judge and its prompt version, retries and fallbacks,
        aggregation, counts. Every deviation from the release is a row with its reason; the page and the
        API show the card as the configured evaluator returns it (a setting may change a row)."""
        return []

    def dataset_notes(self, items: Sequence[Item]) -> list[MethodNote]:
        """Diagnostics of a dataset version, computed at import and shown on the page."""
        return []

    def item_checks(self, item: Item) -> int:
        """How many separate checks scoring one answer to ``item`` runs (Multi-LCB: the problem's test
        cases, each a run of the program), for the submit page's expected work; 0: none to count."""
        return 0

    def item_passed(self, score: ItemScore) -> bool | None:
        """Whether an item got full marks, for the per-item page's "only items not fully passed" (stored
        on the item's result when it is recorded). None: the benchmark has no notion of full marks (a
        graded translation), and the page falls back to a primary score below 1. Benchmarks with full
        marks say it from what their item scores mean; an item scored with an ``error`` is recorded as
        not passed without asking."""
        return None

    def companion_items(self, item_id: str) -> list[str]:
        """Items scored apart that belong with this one, shown beside it on the per-item page (Video NIAH
        multi hop: the chain's other hop at the same N). Ids that were not scored are left out there."""
        return []

    def example_predictions(self, items: Sequence[Item]) -> bytes | None:
        """A ready-to-submit predictions file for newcomers (None: the benchmark offers none)."""
        return None

    def baseline_predictions(self, items: Sequence[Item]) -> dict[str, bytes]:
        """Reference predictions by name (PoliCon's Random and Greedy), scored like any submission and
        shown as marked, unranked rows."""
        return {}


#: classes whose module holds no benchmark's sample
_BASES = (Evaluator, ScoredByJudge)
