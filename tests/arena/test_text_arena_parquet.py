"""Import of a released Text Arena battles file given as Parquet (the 100k and 140k releases' format), on
a file written here with pyarrow: a column a row lacks reads as null there (``question_id`` or ``id``,
``judge`` or ``judge_hash``, ``anony``, ``turn``, ``tstamp``), a message's content as a list of parts (an
image part among them), a conversation as JSON text, ``dedup_tag`` as JSON text, a vote cast with the names
shown and an unsampled battle of a high-frequency prompt. Counts and reasons are worked out by hand below."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.management import call_command

from leaderboard.arena.models import ArenaModel, Battle, Vote

pytestmark = pytest.mark.django_db

PART = pa.struct([("type", pa.string()), ("text", pa.string())])
MESSAGE = pa.struct([("role", pa.string()), ("content", pa.list_(PART))])
SCHEMA = pa.schema(
    [
        ("question_id", pa.string()),
        ("id", pa.string()),
        ("model_a", pa.string()),
        ("model_b", pa.string()),
        ("winner", pa.string()),
        ("judge", pa.string()),
        ("judge_hash", pa.string()),
        ("conversation_a", pa.list_(MESSAGE)),  # nested, content as parts
        ("conversation_b", pa.string()),  # the whole conversation as JSON text
        ("turn", pa.int64()),
        ("anony", pa.bool_()),
        ("language", pa.string()),
        ("tstamp", pa.float64()),
        ("dedup_tag", pa.string()),
        ("intent", pa.string()),
    ]
)


def conversation(*pairs: tuple[str, str], image: bool = False) -> list[dict[str, Any]]:
    """Messages with content as parts; ``image``: the first prompt also carries an image part (not text)."""
    messages = []
    for k, (prompt, answer) in enumerate(pairs):
        parts = [{"type": "text", "text": prompt}] + ([{"type": "image", "text": None}] if image and k == 0 else [])
        messages += [
            {"role": "user", "content": parts},
            {"role": "assistant", "content": [{"type": "text", "text": answer}]},
        ]
    return messages


def row(
    key: str | None,
    a: str,
    b: str,
    winner: str,
    pairs: list[tuple[str, str]],
    *,
    other: list[str] | None = None,
    id_: str | None = None,
    judge: str | None = None,
    judge_hash: str | None = None,
    turn: int | None = None,
    anony: bool | None = None,
    language: str | None = None,
    tstamp: float | None = None,
    dedup: dict | None = None,
    intent: str | None = None,
    image: bool = False,
) -> dict[str, Any]:
    answers_b = other or [f"{answer} (B)" for _, answer in pairs]
    as_text = json.dumps(
        [
            m
            for (p, _), ans in zip(pairs, answers_b)
            for m in ({"role": "user", "content": p}, {"role": "assistant", "content": ans})
        ]
    )
    return {
        "question_id": key,
        "id": id_,
        "model_a": a,
        "model_b": b,
        "winner": winner,
        "judge": judge,
        "judge_hash": judge_hash,
        "conversation_a": conversation(*pairs, image=image),
        "conversation_b": as_text,
        "turn": turn,
        "anony": anony,
        "language": language,
        "tstamp": tstamp,
        "dedup_tag": json.dumps(dedup) if dedup is not None else None,
        "intent": intent,
    }


ROWS = [
    # counted: FastChat's fields, an image part beside the prompt's text
    row(
        "pq-1",
        "quillfeather-13b",
        "brambleworth-7b",
        "model_a",
        [("Describe this photo of a heron.", "A grey heron stands in reeds.")],
        judge="arena_user_Qp4",
        turn=1,
        anony=True,
        language="English",
        tstamp=1700000000.25,
        image=True,
    ),
    # counted: the 100k/140k layout, id instead of question_id, judge_hash, no anony and no turn (two turns),
    # JSON-text tag
    row(
        None,
        "brambleworth-7b",
        "thornhollow-34b",
        "tie",
        [("Wie koche ich Reis?", "Spülen, dann 12 Minuten köcheln."), ("Und Vollkornreis?", "Etwa 35 Minuten.")],
        id_="pq-2",
        judge_hash="c0ffee11",
        language="German",
        tstamp=1700000100.0,
        dedup={"high_freq": False, "sampled": True},
    ),
    # not counted: cast with the names shown
    row(
        "pq-3",
        "thornhollow-34b",
        "quillfeather-13b",
        "tie (bothbad)",
        [("Tell me a joke.", "Why did the chicken...")],
        judge="arena_user_Zz1",
        turn=1,
        anony=False,
        language="English",
        tstamp=1700000200.0,
    ),
    # not counted: a high-frequency prompt's battle left out of the sample
    row(
        "pq-4",
        "quillfeather-13b",
        "thornhollow-34b",
        "model_b",
        [("hi", "Hello!")],
        judge="arena_user_Zz2",
        turn=1,
        anony=True,
        language="English",
        tstamp=1700000300.0,
        dedup={"high_freq": True, "sampled": False},
    ),
    # not counted, for both reasons
    row(
        "pq-5",
        "brambleworth-7b",
        "quillfeather-13b",
        "model_a",
        [("hi", "Hi there.")],
        judge="arena_user_Zz3",
        turn=1,
        anony=False,
        language="unknown",
        tstamp=1700000400.0,
        dedup={"high_freq": True, "sampled": False},
    ),
    # counted: no time stamp, no language, the paper's intent
    row(
        "pq-6",
        "thornhollow-34b",
        "brambleworth-7b",
        "model_b",
        [("Capital of Peru?", "Lima.")],
        judge_hash="beef22",
        intent="Factual Lookup",
    ),
]


@pytest.fixture
def parquet_file(tmp_path: Path) -> Path:
    path = tmp_path / "text_arena_battles.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS, schema=SCHEMA), path, row_group_size=4)  # two row groups
    return path


def test_a_parquet_text_arena_file_imports_with_its_nulls_parts_and_json_text(parquet_file, tmp_path):
    call_command("import_arena", str(parquet_file), "--schema", "text-arena")
    battles = {b.conv_id: b for b in Battle.objects.select_related("vote")}
    assert sorted(battles) == ["pq-1", "pq-2", "pq-3", "pq-4", "pq-5", "pq-6"]  # pq-2 by its id
    assert {b.setting for b in battles.values()} == {"chat"}
    assert set(ArenaModel.objects.values_list("name", "imported")) == {
        ("quillfeather-13b", True),
        ("brambleworth-7b", True),
        ("thornhollow-34b", True),
    }

    # by hand: pq-1, pq-2 and pq-6 count; pq-3 was shown, pq-4 unsampled, pq-5 both
    assert {k for k, b in battles.items() if b.vote.valid} == {"pq-1", "pq-2", "pq-6"}
    assert Vote.objects.filter(valid=True).count() == 3 and Vote.objects.filter(valid=False).count() == 3
    assert {k: b.vote.exclusion_reasons for k, b in battles.items() if not b.vote.valid} == {
        "pq-3": ["not_anonymous"],
        "pq-4": ["duplicate_flood"],
        "pq-5": ["not_anonymous", "duplicate_flood"],
    }

    first = battles["pq-1"]
    assert first.voter_hash == "arena_user_Qp4" and first.vote.winner == "model_a" and first.languages == ["en"]
    turn = first.turns.get()
    assert turn.prompt == "Describe this photo of a heron."  # the image part is not text
    assert turn.text_a == "A grey heron stands in reeds." and turn.text_b == "A grey heron stands in reeds. (B)"
    assert first.created_at == dt.datetime(2023, 11, 14, 22, 13, 20, 250000, tzinfo=dt.UTC)  # 1700000000.25 by hand

    german = battles["pq-2"]  # judge null -> judge_hash; turn null -> its two turns; anony null -> anonymous
    assert german.voter_hash == "c0ffee11" and german.vote.turn_count == 2 and german.vote.winner == "tie"
    assert [t.prompt for t in german.turns.order_by("index")] == ["Wie koche ich Reis?", "Und Vollkornreis?"]
    assert german.languages == ["de"]
    last = battles["pq-6"]
    assert last.voter_hash == "beef22" and last.primary_intent == "Factual Lookup" and last.languages == []

    # the export gives each row back as pyarrow reads it, its nulls included
    out = tmp_path / "out.jsonl"
    call_command("export_arena", str(out), "--schema", "text-arena")
    exported = {r["question_id"] or r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    given = {r["question_id"] or r["id"]: r for r in pq.read_table(parquet_file).to_pylist()}
    assert exported == given

    call_command("import_arena", str(parquet_file), "--schema", "text-arena")  # idempotent
    assert Battle.objects.count() == 6


def _good_bytes(tmp_path: Path, rows: list[dict[str, Any]] = ROWS) -> bytes:
    scratch = tmp_path / "scratch.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), scratch, row_group_size=4)
    return scratch.read_bytes()


def _with(index: int, **changes: Any) -> list[dict[str, Any]]:
    return [{**r, **changes} if i == index else r for i, r in enumerate(ROWS)]


def _long_footer(data: bytes) -> bytes:
    """The footer's length (the 4 bytes before the closing PAR1) made larger than the file."""
    return data[:-8] + (10**9).to_bytes(4, "little") + data[-4:]


# each: the file's bytes (from a good file's), and the refusal by hand: the file's name, then the problem
MALFORMED = {
    "empty": (lambda good, tmp: b"", "empty.parquet: the file is empty (0 bytes); expected a Parquet file of battles"),
    "truncated": (lambda good, tmp: good[: len(good) // 2], "truncated.parquet: the Parquet file is cut short ("),
    "not_parquet": (
        lambda good, tmp: b'{"question_id": "pq-1"}\n',
        "not_parquet.parquet: not a Parquet file (a Parquet file begins with PAR1; this one with b'{\"qu')",
    ),
    "damaged_footer": (
        lambda good, tmp: _long_footer(good),
        "damaged_footer.parquet: the Parquet file is damaged before its first row (",
    ),
    "nan_tstamp": (
        lambda good, tmp: _good_bytes(tmp, _with(2, tstamp=float("nan"))),
        "nan_tstamp.parquet row 3: field 'tstamp': expected epoch seconds (0 to 253402300799, the end of year 9999), "
        "got nan",
    ),
    "infinite_tstamp": (
        lambda good, tmp: _good_bytes(tmp, _with(4, tstamp=float("inf"))),
        "infinite_tstamp.parquet row 5: field 'tstamp': expected epoch seconds (0 to 253402300799, the end of "
        "year 9999), got inf",
    ),
    "nul_in_an_answer": (
        lambda good, tmp: _good_bytes(tmp, _with(3, conversation_a=conversation(("hi", "Hel\x00lo!")))),
        "nul_in_an_answer.parquet row 4: field 'conversation_a': holds a NUL character (\\u0000), which "
        "cannot be stored",
    ),
    "long_model_name": (
        lambda good, tmp: _good_bytes(tmp, _with(0, model_a="m" * 201)),
        "long_model_name.parquet row 1: field 'model_a': 201 characters, more than the 200 kept",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_parquet_file_is_refused_naming_the_file_and_the_problem_and_nothing_is_written(case, tmp_path):
    from django.core.management.base import CommandError

    make, expected = MALFORMED[case]
    path = tmp_path / f"{case}.parquet"
    path.write_bytes(make(_good_bytes(tmp_path), tmp_path))
    with pytest.raises(CommandError) as refused:
        call_command("import_arena", str(path), "--schema", "text-arena")
    assert str(refused.value).startswith(expected), str(refused.value)
    assert "Traceback" not in str(refused.value) and "pyarrow" not in str(refused.value)
    assert not Battle.objects.exists() and not Vote.objects.exists() and not ArenaModel.objects.exists()
