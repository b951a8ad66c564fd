"""Read PoliCon's released layout into tasks and items.

A release is a directory ``task_datas/<party count>/<topic>.json`` (the path given may be the
directory holding ``task_datas`` or ``task_datas`` itself); each file is a JSON list of task records
with ``topic``, ``title``, ``background``, ``stances`` (``party_name``, ``score``, ``choice``,
``stance``), ``resolution``, ``party_num``, ``id``, ``seat_weights`` (tenths summing to 1, in the
order of the stances), ``veto_party_name`` and optionally ``parliament_terms``, ``total_score`` and
``total_choice``. Topic file names contain spaces, commas and ``&``, so the directory is walked
rather than a list of names assumed.

Every task becomes five items, one per objective. Anything malformed raises ``DatasetError`` naming
the file, the record (its position and id) and the field. Seat weights are kept as integer tenths so
the vote is exact (see ``voting``).

Two gaps of the real release are imported, not refused: a party whose ``stance`` is empty (3 tasks,
EPP in "environment & public health") keeps an empty stance, which the prompts show as not given, and
an empty ``resolution`` (6 tasks in "foreign & security policy") is kept empty: no prompt shows a
task's own resolution, and judge validation (``validation``) skips those tasks. ``gaps`` lists both
for the dataset notes. Stances and texts are stripped (297 released stances carry spaces or new lines).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.types import DatasetError, Item

PARTY_COUNTS: tuple[int, ...] = (2, 4, 6)
#: objective key -> label, in display order; the key is the last part of an item id
OBJECTIVES: dict[str, str] = {"sm": "SM", "two_thirds": "2/3M", "veto": "VP", "rawls": "Rawls", "util": "Util"}
_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Party:
    name: str
    stance: str
    choice: int  # 0..9: floor(10 x score), the real vote's share in tenths
    score: float  # share of the party's members who supported the real resolution
    seat_tenths: int  # seat weight x 10


@dataclass(frozen=True)
class Task:
    """One released task: the deliberation that five items (one per objective) share."""

    key: str  # "<party count>/<topic slug>/<id>", unique in a release
    source: str  # the file, relative to task_datas
    topic: str
    title: str
    background: str
    parties: tuple[Party, ...]
    veto_party: str
    resolution: str  # the real adopted text: never shown to the model
    terms: tuple[str, ...]

    def to_payload(self) -> dict[str, Any]:
        return {
            "task": self.key,
            "source": self.source,
            "topic": self.topic,
            "title": self.title,
            "background": self.background,
            "veto_party": self.veto_party,
            "resolution": self.resolution,
            "terms": list(self.terms),
            "parties": [
                {"name": p.name, "stance": p.stance, "choice": p.choice, "score": p.score, "seat_tenths": p.seat_tenths}
                for p in self.parties
            ],
        }

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Task:
        return cls(
            key=payload["task"],
            source=payload["source"],
            topic=payload["topic"],
            title=payload["title"],
            background=payload["background"],
            veto_party=payload["veto_party"],
            resolution=payload["resolution"],
            terms=tuple(payload.get("terms", ())),
            parties=tuple(
                Party(p["name"], p["stance"], int(p["choice"]), float(p["score"]), int(p["seat_tenths"]))
                for p in payload["parties"]
            ),
        )


def gaps(tasks: Iterable[Task]) -> dict[str, list[str]]:
    """What the release leaves empty, by kind, each entry naming the task (its key and source file):
    parties without a stance, and tasks without their adopted resolution."""
    found: dict[str, list[str]] = {"stance": [], "resolution": []}
    for task in tasks:
        where = f"{task.key} ({task.source})"
        found["stance"] += [f"{where}: {p.name}" for p in task.parties if not p.stance]
        if not task.resolution:
            found["resolution"].append(where)
    return found


def slug(text: str) -> str:
    """A topic's part of an item id: lower case, runs of anything but letters and digits as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "topic"


def task_root(path: Path) -> Path:
    """The ``task_datas`` directory of a release given as it or as its parent."""
    if not path.is_dir():
        raise DatasetError(
            f"{path}: a PoliCon release is a directory task_datas/<party count>/<topic>.json, not a file"
        )
    root = path / "task_datas" if (path / "task_datas").is_dir() else path
    if not any(child.is_dir() and child.name.isdigit() for child in root.iterdir()):
        raise DatasetError(f"{root}: no party-count directories (task_datas/2, task_datas/4, ...) found")
    return root


def iter_tasks(path: Path) -> Iterator[Task]:
    """Every task of the release, checked; party counts ascending, topic files by name."""
    root = task_root(path)
    seen: dict[str, str] = {}
    directories = sorted(
        (d for d in root.iterdir() if d.is_dir()), key=lambda d: (not d.name.isdigit(), d.name.zfill(4))
    )
    for directory in directories:
        if not directory.name.isdigit():
            raise DatasetError(
                f"{directory.relative_to(root)}: a directory under task_datas must be a party count (2, 4, 6...)"
            )
        for file in sorted(directory.glob("*.json")):
            source = str(file.relative_to(root))
            for task in _read_file(file, source, int(directory.name)):
                if task.key in seen:
                    raise DatasetError(
                        f"{source}: id {task.key.rsplit('/', 1)[1]} repeats a task of {seen[task.key]} "
                        f"(ids must be unique per party count and topic)"
                    )
                seen[task.key] = source
                yield task


def iter_items(path: Path) -> Iterator[Item]:
    """Five items per task: ids ``<task key>/<objective>``, slices parties, topic and objective."""
    for task in iter_tasks(path):
        payload = task.to_payload()
        for objective in OBJECTIVES:
            yield Item(
                id=f"{task.key}/{objective}",
                slices={"parties": str(len(task.parties)), "topic": task.topic, "objective": objective},
                payload={**payload, "objective": objective},
            )


def _read_file(file: Path, source: str, party_count: int) -> Iterator[Task]:
    try:
        records = json.loads(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise DatasetError(f"{source}: not valid UTF-8") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(records, list):
        raise DatasetError(f"{source}: expected a JSON list of task records, got {type(records).__name__}")
    for position, record in enumerate(records, 1):
        yield _task(record, _Where(source, position, record), party_count, source)


class _Where:
    """Names a record in error messages: file, position and id when it has one."""

    def __init__(self, source: str, position: int, record: Any):
        rid = record.get("id") if isinstance(record, dict) else None
        self.text = f"{source}: record {position}" + (f" (id {rid})" if rid is not None else "")

    def error(self, field: str, problem: str) -> DatasetError:
        return DatasetError(f"{self.text}: field '{field}': {problem}")


def _text(record: dict[str, Any], field: str, where: _Where, *, allow_empty: bool = False) -> str:
    value = record.get(field)
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise where.error(field, "missing or not a non-empty string")
    return value


def _number(value: Any, field: str, where: _Where) -> float:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise where.error(field, f"{value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.error(field, f"expected a number, got {type(value).__name__}")
    return float(value)


def _integer(value: Any, field: str, where: _Where) -> int:
    number = _number(value, field, where)
    if not number.is_integer():
        raise where.error(field, f"expected a whole number, got {value!r}")
    return int(number)


def _task(record: Any, where: _Where, party_count: int, source: str) -> Task:
    if not isinstance(record, dict):
        raise DatasetError(f"{where.text}: expected a JSON object, got {type(record).__name__}")
    topic, title = _text(record, "topic", where), _text(record, "title", where)
    background = _text(record, "background", where)
    resolution = _text(record, "resolution", where, allow_empty=True)  # empty in 6 released tasks; no prompt uses it
    if "id" not in record:
        raise where.error("id", "missing")
    task_id = _integer(record["id"], "id", where) if not isinstance(record["id"], str) else record["id"].strip()
    if task_id == "":
        raise where.error("id", "empty")
    declared = _integer(record.get("party_num"), "party_num", where) if "party_num" in record else None
    if declared is None:
        raise where.error("party_num", "missing")
    if declared != party_count:
        raise where.error("party_num", f"{declared} does not match the directory task_datas/{party_count}")
    stances = record.get("stances")
    if not isinstance(stances, list) or len(stances) != party_count:
        got = len(stances) if isinstance(stances, list) else type(stances).__name__
        raise where.error("stances", f"expected a list of {party_count} parties, got {got}")
    weights = record.get("seat_weights")
    if not isinstance(weights, list) or len(weights) != party_count:
        got = len(weights) if isinstance(weights, list) else type(weights).__name__
        raise where.error("seat_weights", f"expected {party_count} weights in the order of the stances, got {got}")
    tenths = []
    for index, weight in enumerate(weights):
        value = _number(weight, f"seat_weights[{index}]", where) * 10
        if abs(value - round(value)) > _TOLERANCE or not 0 <= round(value) <= 10:
            raise where.error(f"seat_weights[{index}]", f"{weight!r} is not a multiple of 0.1 between 0 and 1")
        tenths.append(round(value))
    if sum(tenths) != 10:
        raise where.error("seat_weights", f"the weights sum to {sum(tenths) / 10:g}, not 1")
    parties = []
    for index, stance in enumerate(stances):
        field = f"stances[{index}]"
        if not isinstance(stance, dict):
            raise where.error(field, f"expected an object, got {type(stance).__name__}")
        name = stance.get("party_name")
        if not isinstance(name, str) or not name.strip():
            raise where.error(f"{field}.party_name", "missing or not a non-empty string")
        text = stance.get("stance")
        if not isinstance(text, str):  # empty in 3 released tasks: kept, shown as not given
            raise where.error(f"{field}.stance", "missing or not a string")
        if "choice" not in stance:
            raise where.error(f"{field}.choice", "missing")
        choice = _integer(stance["choice"], f"{field}.choice", where)
        if not 0 <= choice <= 9:
            raise where.error(f"{field}.choice", f"{choice} is outside 0..9")
        if "score" not in stance:
            raise where.error(f"{field}.score", "missing")
        score = _number(stance["score"], f"{field}.score", where)
        if not 0.0 <= score <= 1.0:
            raise where.error(f"{field}.score", f"{score:g} is outside 0..1")
        parties.append(Party(name.strip(), text.strip(), choice, score, tenths[index]))
    names = [p.name for p in parties]
    if len(set(names)) != len(names):
        raise where.error("stances", f"a party is listed twice: {sorted(n for n in set(names) if names.count(n) > 1)}")
    veto = _text(record, "veto_party_name", where).strip()
    if veto not in names:
        raise where.error("veto_party_name", f"{veto!r} is not among the stances' parties {names}")
    terms = record.get("parliament_terms", [])
    if isinstance(terms, str):
        terms = [terms]
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise where.error("parliament_terms", "expected a list of terms such as ['8th']")
    return Task(
        key=f"{party_count}/{slug(topic)}/{task_id}",
        source=where.text.split(": record")[0],
        topic=topic.strip(),
        title=title.strip(),
        background=background.strip(),
        parties=tuple(parties),
        veto_party=veto,
        resolution=resolution.strip(),
        terms=tuple(terms),
    )
