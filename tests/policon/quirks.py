"""A small release written for the tests in PoliCon's real layout, with every quirk the real release has.

The real ``task_datas`` (github.com/enrico956/EuroCon, read with git, never copied here) was surveyed
record by record: every one of its 5,724 records has exactly the twelve keys of ``RECORD_KEYS`` and
every stance the four of ``STANCE_KEYS``, with the value types written beside them; ids count from 0
in each file; ``parliament_terms`` is one string such as "8th_datas"; topic files are named after
the topic, with spaces, commas and '&'. Its quirks, each reproduced here with invented text:

- a party whose ``stance`` is the empty string (3 records, EPP in "environment & public health");
- an empty ``resolution`` (6 records, "foreign & security policy");
- stances with spaces or new lines around them (297);
- a score of 1.0 with the choice 9 (choice is floor(10 x score), capped at 9; 101 such stances);
- a non-breaking space inside a title.

Scores as strings were not met in the real release (all are floats); our own sample has one, and so
does this fixture, since the importer accepts them. ``write_release`` writes the files; the votes
of the 2-party file are chosen for the judge validation test (``VALIDATION_PAIRS``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RECORD_KEYS: dict[str, type] = {
    "topic": str,
    "title": str,
    "background": str,
    "stances": list,
    "resolution": str,
    "total_score": float,
    "total_choice": int,
    "party_num": int,
    "id": int,
    "parliament_terms": str,
    "seat_weights": list,
    "veto_party_name": str,
}
STANCE_KEYS: dict[str, type] = {"party_name": str, "score": float, "choice": int, "stance": str}
SCORE_FOR_CHOICE = {0: 0.04, 1: 0.15, 2: 0.25, 3: 0.35, 4: 0.45, 5: 0.55, 6: 0.65, 7: 0.75, 8: 0.85, 9: 1.0}


def _record(
    topic: str,
    number: int,
    parties: list[tuple[str, int, str]],
    weights: list[float],
    *,
    resolution: str | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    stances = [
        {"party_name": name, "score": SCORE_FOR_CHOICE[choice], "choice": choice, "stance": stance}
        for name, choice, stance in parties
    ]
    total = sum(w * s["score"] for w, s in zip(weights, stances))
    return {
        "topic": topic,
        "title": title or f"Invented matter {number} on {topic}",
        "background": f"An invented deliberation, number {number}, on {topic}.",
        "stances": stances,
        "resolution": f"The European Parliament raised invented measure [t{number}] on {topic}."
        if resolution is None
        else resolution,
        "total_score": total,
        "total_choice": min(9, int(total * 10)),
        "party_num": len(parties),
        "id": number,
        "parliament_terms": "8th_datas",
        "seat_weights": weights,
        "veto_party_name": parties[-1][0],
    }


ENV = "environment & public health"
FOREIGN = "foreign & security policy"
CIVIL = "civil liberties, justice & home affairs"

#: (real choice, the scripted judge's digit) of every party the validation asks about, in order
VALIDATION_PAIRS = [(1, 2), (2, 1), (3, 4), (4, 3), (9, 9)]


def files() -> dict[str, list[dict[str, Any]]]:
    """task_datas-relative path -> records."""
    env = [
        _record(
            ENV,
            0,
            [("Alder Bloc", 1, "  Cleaner rivers by 2030.\n"), ("Birch Union", 2, "Protect farm incomes.")],
            [0.4, 0.6],
            title="Water quality:\xa0a recommendation",
        ),
        _record(ENV, 1, [("EPP", 0, ""), ("Birch Union", 3, "Fund rural clinics.")], [0.3, 0.7]),
        _record(
            ENV,
            2,
            [("Alder Bloc", 5, "Ban a pesticide."), ("Birch Union", 6, "Delay the ban.")],
            [0.5, 0.5],
            resolution="",
        ),
        _record(ENV, 3, [("Alder Bloc", 4, "Tax emissions."), ("Birch Union", 9, "Exempt small firms.")], [0.2, 0.8]),
    ]
    foreign = [
        _record(
            FOREIGN,
            0,
            [
                ("Cedar", 9, "Sanctions now."),
                ("Dogwood", 2, "Talks first."),
                ("Elm", 5, "Aid the refugees."),
                ("Fir", 7, "Consult NATO."),
            ],
            [0.1, 0.2, 0.3, 0.4],
            resolution="",
        )
    ]
    foreign[0]["stances"][2]["score"] = "0.55"  # a score as a string (our sample's quirk, accepted)
    civil = [
        _record(
            CIVIL, 0, [(f"Group {n}", n, f"Stance of group {n}.") for n in range(6)], [0.1, 0.1, 0.2, 0.2, 0.3, 0.1]
        )
    ]
    return {f"2/{ENV}.json": env, f"4/{FOREIGN}.json": foreign, f"6/{CIVIL}.json": civil}


def write_release(root: Path, party_counts: tuple[int, ...] = (2, 4, 6)) -> Path:
    """Write the fixture as ``root/datas/task_datas/...`` (the real repository's nesting); returns ``root/datas``."""
    for relative, records in files().items():
        if int(relative.split("/")[0]) in party_counts:
            path = root / "datas" / "task_datas" / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(records, ensure_ascii=False, indent=4), encoding="utf-8")
    return root / "datas"
