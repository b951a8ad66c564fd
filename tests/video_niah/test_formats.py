"""The released formats import as they are, from fixtures of our own writing in each format: LongVA's
needle records (options inside the prompt and a bare-letter answer scored as multiple choice, the prompt
sent verbatim with no instruction added), VideoChat-Flash's single-hop {image, question, answer, id} and
multi-hop {images, question1, answer1, question2, answer2} (image order kept, ids from the image names,
two chains with one id refused), the named grid presets, and the method card of both boards."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaluators.core.media import HashingSink
from evaluators.core.types import DatasetError, Prediction
from evaluators.core.video import write_video
from evaluators.video_niah.evaluator import VideoNIAHMultiEvaluator, VideoNIAHSingleEvaluator
from evaluators.video_niah.frames import haystack_frame, object_card
from evaluators.video_niah.release import PRESETS

SINGLE, MULTI = VideoNIAHSingleEvaluator(), VideoNIAHMultiEvaluator()
LONGVA_MC = (
    "\nFind the frame of a red kite. What is drawn on the kite?\nA. A moon\nB. A star\nC. A fish\nD. A sun\n"
    "Answer with the option's letter from the given choices directly."
)
LONGVA_SHORT = (
    "\nFind the frame of a blue boat. What colour is its sail?\nAnswer the question using a single word or phrase."
)
FLASH_Q = (
    "Find the frame of a dog on a sofa. what colour is the sofa\nOptions: (A) green\n(B) red\n(C) grey\n(D) white\n"
    "Only give the best option. Best option: ("
)


def release(tmp_path: Path, seconds: int, grid: dict | None) -> Path:
    root = tmp_path / "release"
    (root / "images").mkdir(parents=True)
    write_video((haystack_frame(3, i) for i in range(seconds)), root / "haystack.mp4")
    for number, (colour, shape) in enumerate(
        [
            ("red", "star"),
            ("blue", "square"),
            ("green", "circle"),
            ("yellow", "triangle"),
            ("purple", "star"),
            ("orange", "circle"),
        ]
    ):
        object_card(colour, shape, number=str(number)).save(root / "images" / f"card{number}.png")
    if grid is not None:
        (root / "grid.json").write_text(json.dumps(grid))
    return root


def test_longvas_needle_records_import_verbatim_and_score_as_multiple_choice(tmp_path):
    root = release(tmp_path, 12, {"frames": [10], "depths": [0, 50]})
    (root / "dataset.json").write_text(
        json.dumps(
            [  # LongVA's file name; its images kept under images/
                {"path": "card0.png", "prompt": LONGVA_MC, "answer": "B"},
                {"path": "card1.png", "prompt": LONGVA_SHORT, "answer": "White"},
            ]
        )
    )
    items = {i.id: i for i in SINGLE.import_release(root, HashingSink())}
    assert sorted(items) == ["single/card0/10/0", "single/card0/10/50", "single/card1/10/0", "single/card1/10/50"]
    mc, short = items["single/card0/10/50"], items["single/card1/10/0"]
    assert mc.payload["options"] == ["A moon", "A star", "A fish", "A sun"] and mc.payload["answer"] == "B"
    assert short.payload["options"] is None and short.payload["answer"] == "White"
    assert mc.payload["count"] == 11 and mc.payload["insert"] == {"5": mc.payload["insert"]["5"]}  # int(0.5 x 10)
    text = next(p for p in SINGLE.build_requests(mc, {})[0].messages[0]["content"] if p["type"] == "text")["text"]
    assert text == LONGVA_MC  # as the authors wrote it: no preamble, no second instruction
    for reply, correct in (("B", 1.0), ("B. A star", 1.0), ("a star", 1.0), ("A", 0.0), ("a moon and a star", 0.0)):
        assert SINGLE.score_item(mc, [Prediction(mc.id, reply)]).scores["correct"] == correct, reply
    assert SINGLE.score_item(short, [Prediction(short.id, "The sail is white.")]).scores["correct"] == 1.0


def test_videochat_flash_single_hop_records_import(tmp_path):
    root = release(tmp_path, 12, {"frames": [5, 10], "depths": [0, 100]})
    (root / "single").mkdir()
    (root / "single" / "COCO_x_0001.png").write_bytes((root / "images" / "card2.png").read_bytes())
    (root / "niah-singlehop_2.json").write_text(
        json.dumps(
            [
                {"question": FLASH_Q, "answer": "C", "image": "single/COCO_x_0001.png", "id": 0},
                {"question": FLASH_Q.replace("dog", "cat"), "answer": "A", "image": "images/card3.png", "id": 1},
            ]
        )
    )
    items = list(SINGLE.import_release(root, HashingSink()))
    assert len(items) == 2 * 2 * 2 and {i.payload["needle"] for i in items} == {"0", "1"}
    first = next(i for i in items if i.id == "single/0/10/100")
    assert first.payload["question"] == FLASH_Q and first.payload["options"] == ["green", "red", "grey", "white"]
    assert first.payload["count"] == 11 and list(first.payload["insert"]) == ["10"]  # the needle after the 10 frames
    assert SINGLE.score_item(first, [Prediction(first.id, "C) grey")]).scores["correct"] == 1.0
    notes = SINGLE.presentation().dataset_notes(items)[0].points
    assert "Grid: custom (frames and depths set in the release's grid.json)" in notes
    assert any(p.startswith("Records in the format of: VideoChat-Flash") for p in notes)


def flash_chain(chain: int, order: list[int], decoy: int) -> dict:
    images = [f"multi/niah_{chain}_{step}_COCO_{step}.png" for step in order] + [f"multi/COCO_decoy_{decoy}.png"]
    q1 = (
        "Find the frame of a red star. Locate the final frame based on the instructions in the image, and choose the "
        "captions that best describe the frame: \nOptions: (A) a green circle\n(B) a blue square\n(C) A yellow "
        "triangle.\n"
        "(D) a purple star\nOnly give the best option. Best option: ("
    )
    q2 = (
        "Find the frame of a red star. Locate the final frame based on the instructions in the image, and answer the "
        "following question based on the final frame: what number is on it\nOptions: (A) 1\n(B) 2\n(C) 3\n(D) 4\n"
        "Only give the best option. Best option: ("
    )
    return {
        "images": images[:2] + images[-1:] + images[2:-1],
        "question1": q1,
        "answer1": "A",
        "question2": q2,
        "answer2": "C",
    }


def test_videochat_flash_multi_hop_records_import_in_their_image_order(tmp_path):
    root = release(tmp_path, 40, {"preset": "videochat-flash", "multihop_frames": [20, 40]})
    (root / "multi").mkdir()
    for name in [
        "niah_7_1_COCO_1",
        "niah_7_2_COCO_2",
        "niah_7_3_COCO_3",
        "COCO_decoy_0",
        "niah_9_1_COCO_1",
        "niah_9_2_COCO_2",
        "niah_9_3_COCO_3",
        "COCO_decoy_1",
    ]:
        (root / "multi" / f"{name}.png").write_bytes((root / "images" / f"card{len(name) % 6}.png").read_bytes())
    records = [flash_chain(7, [2, 1, 3], 0), flash_chain(9, [3, 1, 2], 1)]
    (root / "niah-multihop-2.json").write_text(json.dumps(records))
    sink = HashingSink()
    items = {i.id: i for i in MULTI.import_release(root, sink)}
    assert sorted(items) == [f"multi/niah-{c}/{n}/{q}" for c in (7, 9) for n in (20, 40) for q in ("q1", "q2")]
    q1 = items["multi/niah-7/20/q1"]
    assert q1.payload["question"] == records[0]["question1"] and q1.payload["answer"] == "A"
    assert q1.payload["options"] == ["a green circle", "a blue square", "A yellow triangle.", "a purple star"]
    # 4 images over 20 frames: after 0, 6, 13 and 20 haystack frames (int(i x 20 / 3)), 24 frames sent
    assert q1.payload["count"] == 24 and [int(p) for p in q1.payload["insert"]] == [0, 7, 15, 23]
    placed = [q1.payload["insert"][p] for p in sorted(q1.payload["insert"], key=int)]
    expected = [sink.put(_jpeg(root / path), ext="jpg") for path in records[0]["images"]]
    assert placed == expected  # the record's own image order, not shuffled
    assert MULTI.score_item(q1, [Prediction(q1.id, "a green circle")]).scores["correct"] == 1.0
    assert MULTI.score_item(q1, [Prediction(q1.id, "A yellow triangle")]).scores["correct"] == 0.0  # C's text, not A
    assert items["multi/niah-9/40/q2"].payload["answer"] == "C"

    records[1]["images"] = [p.replace("niah_9_", "niah_7_") for p in records[1]["images"]]
    (root / "niah-multihop-2.json").write_text(json.dumps(records))
    with pytest.raises(
        DatasetError, match=re.escape("niah-multihop-2.json chain 2: chain id 'niah-7' is also chain 1's")
    ):
        list(MULTI.import_release(root, HashingSink()))


def _jpeg(path: Path) -> bytes:
    from evaluators.core.images import prepared_jpeg

    return prepared_jpeg(path.read_bytes(), where="test", max_side=448, quality=90)


def test_a_released_prompt_with_options_needs_a_letter(tmp_path):
    root = release(tmp_path, 12, {"frames": [10]})
    (root / "needles.json").write_text(
        json.dumps([{"path": "images/card0.png", "prompt": LONGVA_MC, "answer": "A star"}])
    )
    with pytest.raises(
        DatasetError, match=re.escape("needles.json record 1, field 'answer': the question writes out four options")
    ):
        list(SINGLE.import_release(root, HashingSink()))


def test_the_presets_are_the_released_scripts_grids():
    assert PRESETS["longva"].frames == tuple(range(200, 3001, 200)) and PRESETS["longva"].depths == (
        0,
        20,
        40,
        60,
        80,
        100,
    )
    assert (
        PRESETS["videochat-flash"].frames
        == PRESETS["videochat-flash"].multihop_frames
        == tuple(range(1000, 10001, 1000))
    )
    assert PRESETS["videochat-flash-longva"].multihop_frames == (500, 1000, 1500, 2000, 2500, 3000)
    assert PRESETS["longva"].multihop_frames == (500, 1000, 1500, 2000, 2500, 3000)


@pytest.mark.parametrize(
    "evaluator", [SINGLE, MULTI, SINGLE.configured({"mode": "video"})], ids=["single", "multi", "video"]
)
def test_the_method_card_states_every_element_and_its_deviations(evaluator):
    card = {row.element: row for row in evaluator.presentation().method_card()}
    for element in (
        "Question text",
        "Answer reading",
        "Grid and preset",
        "Needle placement",
        "Headline",
        "Cells over the model's limit",
        "Frame sampling",
        "Counts",
    ):
        assert element in card
    as_released = {e for e, row in card.items() if not row.deviates}
    assert {"Question text", "Grid and preset", "Needle placement", "Headline", "Counts"} <= as_released
    assert {"Answer reading", "Cells over the model's limit", "Frame sampling", "Chat template"} <= set(
        card
    ) - as_released
    assert all(row.why for row in card.values() if row.deviates)
    assert ("MP4" in card["Needle and haystack"].here) is (evaluator.mode == "video")
