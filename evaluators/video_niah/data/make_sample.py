"""Build the Video NIAH sample release (``sample/``) in the release layout ``release.py`` reads: a
seeded 64-second haystack video written with PyAV (1 frame per second, libx264), three needles in
LongVA's ``{path, prompt, answer}`` form (a number and a colour, asked as LongVA asks a short answer, and one
with its four options listed beside the prompt, this platform's form), two
multi-hop chains of five frames with two decoys each, and a small grid (4 to 32 frames, depths 0, 50
and 100; chains over 16 to 64 frames). Everything is drawn by ``frames.py`` and known by construction.
The files are committed; run this only to change them:
``python -m evaluators.video_niah.data.make_sample [OUT_DIR]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evaluators.core.video import write_video
from evaluators.video_niah.frames import haystack_frame, object_card

SEED = 7
HAYSTACK_SECONDS = 64
GRID = {"frames": [4, 8, 16, 32], "depths": [0, 50, 100], "multihop_frames": [16, 32, 64], "circular": False}
NEEDLES: tuple[dict[str, Any], ...] = (
    {
        "id": "star-number",
        "card": ("red", "star", "7"),
        "prompt": "What number is written on the star in the video?"
        "\nAnswer the question using a single word or phrase.",
        "answer": "7",
    },
    {
        "id": "triangle-colour",
        "card": ("yellow", "triangle", ""),
        "prompt": "What colour is the triangle in the video?\nAnswer the question using a single word or phrase.",
        "answer": "Yellow",
    },
    {
        "id": "square-shape",
        "card": ("blue", "square", "?"),
        "prompt": "Which shape with a question mark appears in the video?",
        "options": ["circle", "square", "triangle", "star"],
        "answer": "B",
    },
)
CHAINS: tuple[dict[str, Any], ...] = (
    {
        "id": "chain-a",
        "links": [
            ("red", "circle"),
            ("blue", "square"),
            ("green", "triangle"),
            ("orange", "star"),
            ("purple", "circle"),
        ],
        "number": "4",
        "decoys": [(("yellow", "square"), "a purple star"), (("green", "circle"), "an orange square")],
        "distractors": ["a yellow square", "a green circle", "a red triangle"],
        "options": ["4", "7", "2", "9"],
    },
    {
        "id": "chain-b",
        "links": [
            ("yellow", "star"),
            ("red", "square"),
            ("blue", "triangle"),
            ("green", "square"),
            ("orange", "triangle"),
        ],
        "number": "6",
        "decoys": [(("purple", "square"), "a blue star"), (("red", "star"), "a yellow circle")],
        "distractors": ["a purple square", "a red star", "a green circle"],
        "options": ["3", "6", "8", "1"],
    },
)


def caption(colour: str, shape: str) -> str:
    return f"{'an' if colour[0] in 'aeiou' else 'a'} {colour} {shape}"


def build(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "images").mkdir(exist_ok=True)
    write_video((haystack_frame(SEED, i) for i in range(HAYSTACK_SECONDS)), out / "haystack.mp4", fps=1)
    needles = []
    for needle in NEEDLES:
        colour, shape, number = needle["card"]
        name = f"images/{needle['id']}.png"
        object_card(str(colour), str(shape), number=str(number)).save(out / name)
        record = {"id": needle["id"], "path": name, "prompt": needle["prompt"], "answer": needle["answer"]}
        if "options" in needle:
            record["options"] = needle["options"]
        needles.append(record)
    (out / "needles.json").write_text(json.dumps(needles, indent=1) + "\n")
    chains = []
    for chain in CHAINS:
        links = list(chain["links"])
        frames = []
        for index, (colour, shape) in enumerate(links):
            name = f"images/{chain['id']}-{index + 1}.png"
            last = index == len(links) - 1
            text = "" if last else f"Find a frame of {caption(*links[index + 1])}"
            object_card(colour, shape, number=str(chain["number"]) if last else "", text=text).save(out / name)
            frames.append({"path": name, "caption": caption(colour, shape)})
        decoys = []
        for index, ((colour, shape), nowhere) in enumerate(chain["decoys"]):
            name = f"images/{chain['id']}-decoy-{index + 1}.png"
            object_card(colour, shape, text=f"Find a frame of {nowhere}").save(out / name)
            decoys.append({"path": name, "caption": caption(colour, shape)})
        options = list(chain["options"])
        chains.append(
            {
                "id": chain["id"],
                "chain": frames,
                "decoys": decoys,
                "distractors": chain["distractors"],
                "question": {
                    "prompt": "What number is written on that last frame?",
                    "options": options,
                    "answer": "ABCD"[options.index(str(chain["number"]))],
                },
            }
        )
    (out / "multihop.json").write_text(json.dumps(chains, indent=1) + "\n")
    (out / "grid.json").write_text(json.dumps(GRID, indent=1) + "\n")
    (out / "README.md").write_text(
        "# Video NIAH sample\n\nGenerated for this platform by `make_sample.py`: a seeded haystack of drifting colour "
        "fields and moving discs (64 s, 1 frame per second), needles and clue frames drawn with Pillow, answers known "
        "by construction. A sample to exercise the pipeline, not the released benchmark.\n"
    )


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "sample"
    build(target)
    print(f"wrote the sample to {target}")
