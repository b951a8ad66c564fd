"""Reading IndicVisionBench's released configurations into items, images stored once by content hash.

The release (Hugging Face ``krutrim-ai-labs/IndicVisionBench``) is Parquet, one folder per
configuration: ``ocr`` (id, image, text, language, page_url), ``mmt`` (id, image, topic, State/UT,
English, one column per Indic language, source_url) and the VQA sets ``vqa_en``, ``vqa_indic`` and
``vqa_parallel`` (id, image, language, State/UT, topic, short_q1/short_a1, short_q2/short_a2, mcq,
mcq_opt1..4, mcq_a, true_false_q/true_false_a, long_q/long_a, adversarial_question/adversarial_answer).
Image columns are ``{bytes, path}`` structs. A path may be the whole release (the evaluator reads its
own configurations' folders), one configuration's folder, or one Parquet or JSON Lines file; a
configuration without a folder is recognised by its columns.

Items: an OCR page per row; an MMT item per row and target language; a VQA item per row and question
type (a question the release leaves empty is no item; the dataset's notes count items per type). Images are converted
once, at import, to what the paper sends (RGB, at most 1080 px, JPEG quality 95) and kept under their hash;
every error names the file, the row and the column.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluators.core.images import prepared_jpeg
from evaluators.core.media import MediaSink
from evaluators.core.records import Record, image_bytes, iter_records, record_files
from evaluators.core.types import DatasetError, Item
from evaluators.indic_vision.languages import (
    INDIC,
    Language,
    choice_letter,
    language_named,
    normalize_text,
    truth_value,
)

TASK_CONFIGS: dict[str, tuple[str, ...]] = {
    "ocr": ("ocr",),
    "mmt": ("mmt",),
    "vqa": ("vqa_en", "vqa_indic", "vqa_parallel"),
}
#: the VQA question types: (key, question column, answer column, label)
QUESTION_TYPES: tuple[tuple[str, str, str, str], ...] = (
    ("short_1", "short_q1", "short_a1", "Short answer 1"),
    ("short_2", "short_q2", "short_a2", "Short answer 2"),
    ("mcq", "mcq", "mcq_a", "Multiple choice"),
    ("true_false", "true_false_q", "true_false_a", "True or false"),
    ("long", "long_q", "long_a", "Long answer"),
    ("adversarial", "adversarial_question", "adversarial_answer", "Adversarial"),
)
QUESTION_LABELS = {key: label for key, _, _, label in QUESTION_TYPES}
JUDGED_TYPES = ("short_1", "short_2", "long", "adversarial")
VQA_SETS = {"vqa_en": "en", "vqa_indic": "indic", "vqa_parallel": "parallel"}


def config_of(record: Record) -> str:
    """The configuration a record's columns belong to (a file read without its folder)."""
    columns = set(record.data)
    if {"short_q1", "mcq"} & columns:
        return (
            "vqa_en"
            if (language_named(str(record.data.get("language") or "")) or INDIC[0]).code == "en"
            else "vqa_indic"
        )
    if "English" in columns:
        return "mmt"
    if {"text", "language"} <= columns:
        return "ocr"
    raise DatasetError(
        f"{record.where()}: the columns ({', '.join(sorted(columns))}) are none of IndicVisionBench's "
        "configurations (ocr, mmt, vqa)"
    )


def task_records(path: Path, task: str) -> Iterator[tuple[str, Record]]:
    """(configuration, record) for every record of ``task``'s configurations under ``path``."""
    path = Path(path)
    configs = TASK_CONFIGS[task]
    folders = [(config, path / config) for config in configs if (path / config).is_dir()] if path.is_dir() else []
    if folders:
        for config, folder in folders:
            for source in record_files(folder):
                for record in iter_records(source):
                    yield config, record
        return
    if path.is_dir() and any((path / c).is_dir() for cs in TASK_CONFIGS.values() for c in cs):
        raise DatasetError(f"{path.name}: the release has no {' or '.join(configs)} folder for this leaderboard")
    files = record_files(path)
    if not files:
        raise DatasetError(f"{path.name}: no .parquet or .jsonl files")
    folder_config = path.name if path.name in configs else None
    for source in files:
        for record in iter_records(source):
            config = folder_config or config_of(record)
            if config not in configs:
                raise DatasetError(
                    f"{record.where()}: a {config} record, but this leaderboard reads {', '.join(configs)}"
                )
            yield config, record


def _language(record: Record, column: str = "language") -> Language:
    value = record.text(column)
    language = language_named(value)
    if language is None:
        raise DatasetError(f"{record.where(column)}: unknown language {value!r}")
    return language


def _image(record: Record, media: MediaSink) -> str:
    return media.put(prepared_jpeg(image_bytes(record, "image"), where=record.where("image")), ext="jpg")


def _origin(record: Record) -> dict[str, str]:
    """A generated sample says so in an ``origin`` column (the real release has none)."""
    origin = record.text("origin", required=False)
    return {"origin": origin} if origin else {}


class _Ids:
    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def add(self, item_id: str, record: Record) -> str:
        if item_id in self.seen:
            raise DatasetError(f"{record.where('id')}: the item {item_id!r} is also at {self.seen[item_id]}")
        self.seen[item_id] = record.where()
        return item_id


def ocr_items(path: Path, media: MediaSink) -> Iterator[Item]:
    ids = _Ids()
    for _, record in task_records(path, "ocr"):
        language = _language(record)
        text = normalize_text(str(record.data.get("text") or ""))
        if not text.strip():
            raise DatasetError(f"{record.where('text')}: missing or empty")
        item_id = ids.add(f"ocr/{language.code}/{record.text('id')}", record)
        yield Item(
            item_id,
            {"language": language.name},
            {
                "task": "ocr",
                "image": _image(record, media),
                "text": text,
                "language": language.name,
                "source": record.text("page_url", required=False),
                **_origin(record),
            },
        )


def mmt_items(path: Path, media: MediaSink) -> Iterator[Item]:
    ids = _Ids()
    for _, record in task_records(path, "mmt"):
        english = record.text("English")
        targets = [(language, record.text(language.name, required=False)) for language in INDIC]
        present = [(language, text) for language, text in targets if text]
        if not present:
            raise DatasetError(
                f"{record.where()}: no translation in any of the columns "
                f"{', '.join(language.name for language in INDIC)}"
            )
        image = _image(record, media)
        row_id = record.text("id")
        topic = record.text("topic", required=False) or "unspecified"
        for language, reference in present:
            yield Item(
                ids.add(f"mmt/{language.code}/{row_id}", record),
                {"language": language.name, "topic": topic},
                {
                    "task": "mmt",
                    "image": image,
                    "english": english,
                    "reference": normalize_text(reference),
                    "language": language.name,
                    "state": record.text("State/UT", required=False),
                    **_origin(record),
                },
            )


def vqa_items(path: Path, media: MediaSink) -> Iterator[Item]:
    ids = _Ids()
    for config, record in task_records(path, "vqa"):
        language = _language(record)
        row_id = record.text("id")
        topic = record.text("topic", required=False) or "unspecified"
        image = ""
        for key, q_column, a_column, _ in QUESTION_TYPES:
            question, answer = record.text(q_column, required=False), record.text(a_column, required=False)
            if not question or not answer:  # the release leaves some questions empty: no item
                continue
            payload: dict[str, Any] = {
                "task": "vqa",
                "type": key,
                "question": normalize_text(question),
                "answer": normalize_text(answer),
                "language": language.name,
            }
            if key == "mcq":
                options = [record.text(f"mcq_opt{i}") for i in range(1, 5)]
                letter = choice_letter(answer, language, tuple(options))
                if letter is None:
                    raise DatasetError(f"{record.where(a_column)}: {answer!r} names none of the options A-D")
                payload.update(options=[normalize_text(o) for o in options], gold=letter)
            elif key == "true_false":
                truth = truth_value(answer, language)
                if truth is None:
                    raise DatasetError(
                        f"{record.where(a_column)}: {answer!r} is not a {language.name} word for true or false"
                    )
                payload["gold"] = truth
            image = image or _image(record, media)
            payload.update(image=image, **_origin(record))
            item_id = ids.add(f"{config}/{language.code}/{row_id}/{key}", record)
            yield Item(
                item_id,
                {"language": language.name, "question_type": key, "set": VQA_SETS[config], "topic": topic},
                payload,
            )
