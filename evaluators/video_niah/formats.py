"""The needle and chain records of the Video NIAH releases, read into one shape, their text kept verbatim.

Three formats are read, each recognised by its fields:

- LongVA (``vision_niah/needle_datasets/dataset.json``): ``{path, prompt, answer}``. The prompt is the
  whole question as the authors wrote it: with four options written inside it ("A. ..." lines) and
  "Answer with the option's letter from the given choices directly." the answer is a bare letter and
  the record is scored as multiple choice; otherwise the answer is short ("Yellow", "200").
- VideoChat-Flash (``xtuner-eval_niah/vision_niah/data/source_data/niah-coco-singlehop_20.json`` and
  ``data_multi/source_data/niah-coco-multihop-100.json``): single hop ``{image, question, answer, id}``,
  multi hop ``{images, question1, answer1, question2, answer2}``, the options inside the questions
  ("Options: (A) white\\n(B) ..."), the images of a chain in the order they are placed in the video.
- This platform's own (the sample's): LongVA's record with a separate ``options`` list, and chains
  ``{id, chain, decoys, distractors, question}`` whose questions are composed here.

A released record's text is sent as it is (``verbatim``): no preamble, no instruction added. Its options
are taken out of the text (``evaluators.core.answers.prompt_options``) only to read and score the answer.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.answers import LETTERS, OPTION_LINE, option_letter, prompt_options
from evaluators.core.types import DatasetError

MULTIHOP_Q1 = (
    "Start from the frame showing {start}. Each such frame says which frame to find next; follow the "
    "frames to the end of the chain. What does the last frame of the chain show?"
)
#: a VideoChat-Flash chain's clue images are named niah_<chain>_<step>_<COCO image>
_CHAIN_IMAGE = re.compile(r"(?:^|/)niah_(\d+)_\d+_")


@dataclass(frozen=True)
class Question:
    """A question as asked: its text, the options (None: a short answer), the gold letter or short
    answer, and whether the text already holds the options and the answer instruction (released)."""

    text: str
    options: list[str] | None
    answer: str
    verbatim: bool


@dataclass(frozen=True)
class Needle:
    id: str
    image: str  # the path as the record writes it
    question: Question
    format: str


@dataclass(frozen=True)
class Chain:
    """A multi-hop chain: the image paths in the order they are placed in the video, the indices
    that are decoys (never shuffled for a released chain), and Q1 and Q2."""

    id: str
    images: list[str]
    q1: Question
    q2: Question
    format: str
    shuffle: bool


def _text(record: dict[str, Any], name: str, where: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"{where}, field '{name}': missing or empty")
    return value


def _answer(record: dict[str, Any], name: str, options: list[str] | None, where: str) -> str:
    answer = record.get(name)
    if not isinstance(answer, (str, int)) or isinstance(answer, bool) or not str(answer).strip():
        raise DatasetError(f"{where}, field '{name}': missing or empty")
    if options is None:
        return str(answer).strip()
    letter = option_letter(str(answer), options)
    if letter is None:
        raise DatasetError(f"{where}, field '{name}': {answer!r} names none of the four options")
    return letter


def _listed_options(record: dict[str, Any], where: str) -> list[str] | None:
    options = record.get("options")
    if options is None:
        return None
    if not isinstance(options, list) or len(options) != 4 or not all(isinstance(o, str) and o.strip() for o in options):
        raise DatasetError(f"{where}, field 'options': four non-empty texts")
    return [o.strip() for o in options]


def released_question(record: dict[str, Any], text_field: str, answer_field: str, where: str) -> Question:
    """A released question: options read out of its text, multiple choice when there are four and the
    answer is a letter, a short answer otherwise; the text kept as written."""
    text = _text(record, text_field, where)
    options = prompt_options(text)
    answer = str(record.get(answer_field, "")).strip()
    if options is not None and answer.upper() not in LETTERS:
        raise DatasetError(
            f"{where}, field '{answer_field}': the question writes out four options, so the answer "
            f"must be their letter (got {answer!r})"
        )
    return Question(text, options, _answer(record, answer_field, options, where), verbatim=True)


def needle_of(record: dict[str, Any], where: str) -> Needle:
    """One single-hop record in any of the three formats."""
    if "image" in record and "question" in record:  # VideoChat-Flash
        image = _text(record, "image", where)
        given = record.get("id")
        return Needle(
            str(given) if given is not None else Path(image).stem,
            image,
            released_question(record, "question", "answer", where),
            "videochat-flash",
        )
    image = _text(record, "path", where)
    needle_id = str(record["id"]) if record.get("id") is not None else Path(image).stem
    listed = _listed_options(record, where)
    if listed is not None:  # this platform's: the options beside the prompt, composed at request time
        question = Question(
            _text(record, "prompt", where).strip(), listed, _answer(record, "answer", listed, where), False
        )
        return Needle(needle_id, image, question, "platform")
    return Needle(needle_id, image, released_question(record, "prompt", "answer", where), "longva")


def chain_of(record: dict[str, Any], number: int, where: str) -> Chain:
    """One multi-hop record: VideoChat-Flash's (``images``) or this platform's (``chain``)."""
    if "images" in record:
        images = record["images"]
        if (
            not isinstance(images, list)
            or not 2 <= len(images) <= 12
            or not all(isinstance(i, str) and i for i in images)
        ):
            raise DatasetError(f"{where}, field 'images': a list of 2 to 12 image paths")
        numbers = {m.group(1) for m in (_CHAIN_IMAGE.search(i) for i in images) if m}
        given = record.get("id")
        chain_id = str(given) if given is not None else (f"niah-{numbers.pop()}" if len(numbers) == 1 else str(number))
        return Chain(
            chain_id,
            list(images),
            released_question(record, "question1", "answer1", where),
            released_question(record, "question2", "answer2", where),
            "videochat-flash",
            shuffle=False,
        )
    chain_id = str(record["id"]) if record.get("id") is not None else str(number)
    chain, decoys = record.get("chain"), record.get("decoys", [])
    if not isinstance(chain, list) or not 2 <= len(chain) <= 12 or not all(isinstance(f, dict) for f in chain):
        raise DatasetError(f"{where}, field 'chain': a list of 2 to 12 frames")
    if not isinstance(decoys, list) or not all(isinstance(f, dict) for f in decoys):
        raise DatasetError(f"{where}, field 'decoys': a list of frames")
    captions = [str(f.get("caption", "")) for f in chain]
    if not all(captions):
        raise DatasetError(f"{where}, field 'chain': every frame needs a caption")
    distractors = record.get("distractors")
    if not isinstance(distractors, list) or len(distractors) != 3 or captions[-1] in distractors:
        raise DatasetError(f"{where}, field 'distractors': three captions other than the last frame's")
    question = record.get("question")
    if not isinstance(question, dict):
        raise DatasetError(f"{where}, field 'question': an object {{prompt, options, answer}}")
    q2_options = _listed_options(question, f"{where}, question")
    if q2_options is None or not str(question.get("prompt", "")).strip():
        raise DatasetError(f"{where}, field 'question': a prompt and four options")
    q1_options = [captions[-1], *[str(d) for d in distractors]]
    random.Random(f"{chain_id}:q1").shuffle(q1_options)
    start = MULTIHOP_Q1.format(start=captions[0])
    q1 = Question(start, q1_options, LETTERS[q1_options.index(captions[-1])], verbatim=False)
    q2 = Question(
        f"{start.rsplit(' What', 1)[0]} {str(question['prompt']).strip()}",
        q2_options,
        _answer(question, "answer", q2_options, f"{where}, question"),
        verbatim=False,
    )
    images = [str(f.get("path", "")) for f in chain + decoys]
    return Chain(chain_id, images, q1, q2, "platform", shuffle=True)


def rotations(question: Question, circular: bool) -> list[tuple[str, Question]]:
    """(id suffix, question) per asking: once, or four times with the options rotated (a verbatim
    text gets its option lines rewritten in place)."""
    if not circular or question.options is None:
        return [("", question)]
    index = LETTERS.index(question.answer)
    asked = []
    for k in range(4):
        shown = question.options[k:] + question.options[:k]
        text = question.text
        if question.verbatim:
            text = _options_rewritten(text, shown)
        asked.append((f"/r{k}", Question(text, shown, LETTERS[(index - k) % 4], question.verbatim)))
    return asked


def _options_rewritten(text: str, shown: list[str]) -> str:
    """``text`` with each of its option lines giving the option ``shown`` in that letter's place."""
    return OPTION_LINE.sub(lambda m: f"{m['lead']}{m['letter']}{m['mark']} {shown[LETTERS.index(m['letter'])]}", text)
