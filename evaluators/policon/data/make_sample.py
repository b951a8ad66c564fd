"""Build the PoliCon sample release: ``sample/task_datas/<2|4|6>/<topic>.json``.

Written for this project (same licence as the code): fictional parties, topics and resolutions in
exactly the released layout, 12 tasks (four per party count; one topic file per count holds two), so
60 items. Topic names carry spaces, commas and ``&`` as the real ones do. Seat weights (tenths), the
veto party, the parties' real choices and scores come from a fixed seed, so running this again
rewrites byte-identical files; one score per file is written as a string, as some released files do.

Usage::

    python evaluators/policon/data/make_sample.py [--out DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).resolve().parent / "sample"
SEED = 20261201

PARTIES = (
    "Harbour Alliance",
    "Green Meadow Party",
    "Civic Liberal Union",
    "Workers' Solidarity Bloc",
    "Northern Federalists",
    "Alpine Heritage Movement",
)

# topic -> (background, {title: (resolution, six stances in the order of PARTIES)})
TOPICS: dict[str, tuple[str, dict[str, tuple[str, tuple[str, ...]]]]] = {
    "Coastal fisheries, ports & shipping": (
        "Small coastal fleets of the fictional Northsea Union land a falling share of the catch while large "
        "trawlers and container ports expand; fish stocks in two basins are below safe levels.",
        {
            "Catch quotas for small coastal fleets": (
                "The European Parliament raised the share of catch quotas reserved for vessels under 12 metres to "
                "30% from 2027, asks Member States to allocate quotas by social and environmental criteria, and "
                "funds a scientific survey of both basins every two years.",
                (
                    "Reserve part of the quota for small boats but keep port investment growing.",
                    "Cut total catches until stocks recover and ban bottom trawling near the coast.",
                    "Let quotas be traded freely so the most efficient fleets fish.",
                    "Protect the jobs of coastal crews with a guaranteed quota share and training funds.",
                    "Leave quota allocation to the regions, without a common rule.",
                    "Preserve traditional fishing villages and their cooperatives.",
                ),
            ),
            "Cleaner fuel for ferry services": (
                "The European Parliament raised the target of ferries running on shore power or low-emission fuel "
                "to half of all crossings by 2030, co-finances port charging points, and exempts island lifeline "
                "routes from fare increases.",
                (
                    "Equip the main ports with shore power paid for by port fees.",
                    "Phase out heavy fuel oil on all ferry routes by 2028.",
                    "Use emission trading rather than fixed fuel rules.",
                    "Keep ferry fares low and protect crews during the switch.",
                    "Let each coastal region set its own timetable.",
                    "Keep small island routes running whatever the cost.",
                ),
            ),
        },
    ),
    "Rail, roads & cycling": (
        "Commuter rail lines in the fictional border regions close at weekends, rural roads are congested by "
        "freight, and cycling accounts for less than 3% of trips.",
        {
            "Cross-border commuter trains": (
                "The European Parliament raised funding for cross-border commuter lines by EUR 2 billion until "
                "2030, requires a single ticket across operators, and asks for hourly weekend services on every "
                "line with more than 5,000 daily riders.",
                (
                    "Connect the ports to the rail network first.",
                    "Move freight from roads to rail and build protected cycle lanes.",
                    "Open rail lines to competing private operators.",
                    "Keep fares affordable and rail jobs public.",
                    "Let national railways decide their own schedules.",
                    "Reopen the mountain branch lines closed in the 1990s.",
                ),
            ),
            "Safer rural roads": (
                "The European Parliament raised the safety standard for rural roads, funds separated cycle paths "
                "along the 500 most dangerous stretches, and limits heavy freight to designated corridors at night.",
                (
                    "Keep freight corridors open day and night for the ports.",
                    "Lower speed limits and build separated cycle paths.",
                    "Use toll revenue rather than public money for upgrades.",
                    "Protect lorry drivers' working hours and rest areas.",
                    "Leave road standards to national authorities.",
                    "Protect mountain passes from heavy through traffic.",
                ),
            ),
        },
    ),
    "Digital privacy & data markets": (
        "Apps in the fictional Union sell location data to brokers; small firms say compliance costs are high "
        "and consumer groups report that consent banners are ignored.",
        {
            "Limits on the sale of location data": (
                "The European Parliament raised the protection of location data by banning its sale without "
                "separate consent, requires brokers to register and be audited yearly, and gives small firms a "
                "free compliance toolkit.",
                (
                    "Allow data use for logistics and shipping safety.",
                    "Ban tracking for advertising altogether.",
                    "Rely on transparency and consumer choice, not bans.",
                    "Stop employers from tracking workers outside working hours.",
                    "Let national data authorities set the rules.",
                    "Protect local businesses from large platforms.",
                ),
            ),
            "Public data for research": (
                "The European Parliament raised access to anonymised public-sector data for research, sets up a "
                "Union data trust with independent oversight, and forbids re-identification under penalty of fines.",
                (
                    "Share port and traffic data to improve logistics.",
                    "Open environmental data to every citizen.",
                    "Let private firms license public data at fair prices.",
                    "Keep health and employment data out of any market.",
                    "Keep data in national hands.",
                    "Publish regional data in the regional languages.",
                ),
            ),
        },
    ),
    "Mountain water, energy & climate": (
        "Glaciers in the fictional Alpine provinces are retreating, summer droughts cut hydropower, and valleys "
        "dispute the sharing of water between farms, towns and power plants.",
        {
            "Sharing water in dry summers": (
                "The European Parliament raised a common drought plan that gives drinking water first priority, "
                "shares the remaining water between farms and power plants by agreed quotas, and funds reservoirs "
                "that also serve flood protection.",
                (
                    "Keep rivers navigable for freight in dry summers.",
                    "Protect river ecosystems before any other use.",
                    "Price water so that it goes to its most valuable use.",
                    "Guarantee water for farm workers' villages.",
                    "Let each valley decide how it shares water.",
                    "Protect the mountain farms' historic water rights.",
                ),
            ),
        },
    ),
}
# the tasks per party count: (topic, title); the first topic of each count holds two tasks
PLAN: dict[int, tuple[tuple[str, str], ...]] = {
    2: (
        ("Coastal fisheries, ports & shipping", "Catch quotas for small coastal fleets"),
        ("Coastal fisheries, ports & shipping", "Cleaner fuel for ferry services"),
        ("Rail, roads & cycling", "Cross-border commuter trains"),
        ("Mountain water, energy & climate", "Sharing water in dry summers"),
    ),
    4: (
        ("Digital privacy & data markets", "Limits on the sale of location data"),
        ("Digital privacy & data markets", "Public data for research"),
        ("Rail, roads & cycling", "Safer rural roads"),
        ("Coastal fisheries, ports & shipping", "Catch quotas for small coastal fleets"),
    ),
    6: (
        ("Rail, roads & cycling", "Cross-border commuter trains"),
        ("Rail, roads & cycling", "Safer rural roads"),
        ("Mountain water, energy & climate", "Sharing water in dry summers"),
        ("Digital privacy & data markets", "Limits on the sale of location data"),
    ),
}
TERMS = ("7th", "8th", "9th")


def seat_tenths(rng: random.Random, parties: int) -> list[int]:
    """Random seat weights in tenths, each at least one, summing to ten."""
    cuts = sorted(rng.sample(range(1, 10), parties - 1))
    bounds = [0, *cuts, 10]
    return [b - a for a, b in itertools.pairwise(bounds)]


def task_record(rng: random.Random, parties: int, topic: str, title: str, task_id: int) -> dict[str, Any]:
    background, tasks = TOPICS[topic]
    resolution, stances = tasks[title]
    chosen = sorted(rng.sample(range(len(PARTIES)), parties))
    weights = seat_tenths(rng, parties)
    records: list[dict[str, Any]] = []
    for index in chosen:
        score = round(rng.randint(0, 99) / 100 + rng.randint(0, 9) / 1000, 3)
        records.append(
            {"party_name": PARTIES[index], "score": score, "choice": int(score * 10), "stance": stances[index]}
        )
    total = sum(w * r["score"] for w, r in zip(weights, records)) / 10
    return {
        "topic": topic,
        "title": title,
        "background": background,
        "stances": records,
        "resolution": resolution,
        "total_score": round(total, 4),
        "total_choice": int(total * 10),
        "party_num": parties,
        "id": task_id,
        "parliament_terms": [rng.choice(TERMS)],
        "seat_weights": [w / 10 for w in weights],
        "veto_party_name": PARTIES[rng.choice(chosen)],
    }


def build(out: Path) -> list[Path]:
    rng = random.Random(SEED)
    root = out / "task_datas"
    if root.exists():
        shutil.rmtree(root)
    written = []
    for parties, plan in PLAN.items():
        files: dict[str, list[dict[str, Any]]] = {}
        for topic, title in plan:
            files.setdefault(topic, []).append(task_record(rng, parties, topic, title, len(files.get(topic, [])) + 1))
        for topic, records in files.items():
            records[0]["stances"][0]["score"] = str(records[0]["stances"][0]["score"])  # released files have both
            path = root / str(parties) / f"{topic}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    for path in build(args.out):
        print(path)


if __name__ == "__main__":
    main()
