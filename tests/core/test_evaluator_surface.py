"""The Evaluator base class keeps scoring and nothing else: its public members, listed by hand here, are
at most thirteen (the issue's "about twelve"), and what only some benchmarks need comes from a capability a typed method
returns (``generation``, ``judging``, ``presentation``) with a default meaning "not used"."""

from __future__ import annotations

from evaluators.core.evaluator import Evaluator, Generation, Presentation, ScoredByJudge
from evaluators.core.registry import BENCHMARKS, evaluator_for
from evaluators.core.types import ItemScore

#: the site's benchmarks (``registered_keys()`` may also hold an evaluator a test registered for its own run)
SHIPPED = tuple(row.key for row in BENCHMARKS)

#: the base class's public members, counted by hand: identity, scoring, set-up, then the three capabilities
BASE_MEMBERS = {
    "key",
    "metric_columns",
    "import_release",
    "build_requests",
    "score_item",
    "aggregate",
    "aggregation",
    "needs_shared_part",
    "configured",
    "environment",
    "generation",
    "judging",
    "presentation",
}


def test_the_base_class_has_the_twelve_members_listed_here() -> None:
    # the thirteenth, needs_shared_part, says what scoring reads of an item (Multi-LCB's answers without
    # code never decode their problem's tests): a scoring concern, so it stays on the base class
    public = {name for name in dir(Evaluator) if not name.startswith("_")}
    assert public == BASE_MEMBERS
    assert len(public) <= 13


def test_the_capability_defaults_mean_not_used() -> None:
    plain = evaluator_for("multi-lcb")
    assert plain.judging() is None
    assert plain.generation() == Generation()
    assert plain.generation().conversation is None and plain.generation().transcript_required() == ""
    shown = Presentation(plain)  # the base presentation: nothing beyond the metrics
    assert (shown.method_notes(), shown.method_card(), shown.slice_dimensions, shown.heatmap, shown.lines) == (
        [],
        [],
        (),
        None,
        None,
    )
    assert shown.item_passed(ItemScore("x", {}, {"pass@1": 1.0})) is None and shown.baseline_predictions([]) == {}


def test_only_judged_benchmarks_say_a_judge_and_theirs_names_its_role() -> None:
    # the site's benchmarks (a test may register an evaluator of its own, such as the demo judge's, for its run)
    roles = {key: use.role for key in SHIPPED if (use := evaluator_for(key).judging()) is not None}
    assert roles == {
        "causal-pitfalls": "causal-pitfalls",
        "causal-pitfalls-code": "causal-pitfalls",
        "indic-vision-vqa": "indic-vision",
        "policon": "policon",
    }
    assert all(isinstance(evaluator_for(key), ScoredByJudge) for key in roles)


def test_only_the_code_assisted_protocol_has_several_turns() -> None:
    turns = {
        key: conversation.max_stages({})
        for key in SHIPPED
        if (conversation := evaluator_for(key).generation().conversation) is not None
    }
    assert turns == {"causal-pitfalls-code": 2}
    assert "conversation with the platform" in evaluator_for("causal-pitfalls-code").generation().transcript_required()


def test_a_setting_changes_what_generation_asks_of_the_model() -> None:
    video = evaluator_for("video-niah-single", settings={"mode": "video"}).generation()
    assert (video.modality, video.server.video_all_frames) == ("video", True)
    images = evaluator_for("video-niah-single").generation()
    assert (images.modality, images.server.video_all_frames) == ("image", False)
