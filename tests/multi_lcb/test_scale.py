"""Importing and scoring a Multi-LCB release twice the size holds no more memory: the import streams
items to the items file, and scoring (the command line's path, a worker's chunks alike) reads the
items it scores, a batch at a time, through the file's index."""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import re
import tracemalloc
from pathlib import Path

import pytest

from evaluators.__main__ import main
from evaluators.core.itemstore import file_sha256, open_items, write_items
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.multi_lcb.prompts import LANGUAGE_KEYS
from evaluators.multi_lcb.synthetic import Shape, write_predictions, write_release


def peaks(tmp_path: Path, problems: int) -> tuple[int, int, int]:
    """Traced peak bytes of importing a generated release of ``problems`` problems (as the site does:
    items to a file, notes, hash, ids) and of scoring it with the command line (the Python solutions of
    its first two problems run; every other item answered without code); and the tests' bytes."""
    folder = tmp_path / str(problems)
    folder.mkdir()
    # about 240 kB of tests a problem: the larger release's tests are 11 MB decoded
    release = write_release(
        Shape(problems=problems, tests=6, test_bytes=40_000), folder / "release.jsonl", seed=problems
    )
    programs = write_predictions(release, folder / "predictions.jsonl", LANGUAGE_KEYS, release.question_ids[:2])
    assert programs == 2
    evaluator = MultiLCBEvaluator()
    items_path = folder / "items.jsonl"
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        write_items(evaluator.import_release(release.path), items_path)
        items = open_items(items_path)
        evaluator.presentation().dataset_notes(items)
        file_sha256(items_path)
        assert len(items.ids()) == problems * 12
        imported = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        assert (
            main(
                [
                    "score",
                    "--benchmark",
                    "multi-lcb",
                    "--dataset",
                    str(items_path),
                    "--predictions",
                    str(folder / "predictions.jsonl"),
                    "--concurrency",
                    "2",
                ]
            )
            == 0
        )
        scored = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return imported, scored, release.test_bytes


def _peaks_printed(tmp_path: Path, problems: int) -> tuple[tuple[int, int, int], str]:
    """``peaks`` with what the command line printed (run in a fresh process: ``_isolated``)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        found = peaks(tmp_path, problems)
    return found, printed.getvalue()


def _isolated(tmp_path: Path, problems: int) -> tuple[tuple[int, int, int], str]:
    """``peaks`` in a fresh interpreter: the traced peak is then the import's and the scoring's alone, not
    also whatever the earlier tests of this pytest worker left allocated or cached (the measure once failed
    in the whole suite and passed alone)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_peaks_printed, (tmp_path, problems))


@pytest.mark.toolchains
def test_a_release_twice_the_size_is_imported_and_scored_in_no_more_memory(tmp_path):
    (small_import, small_score, small_tests), small_out = _isolated(tmp_path, 24)
    (large_import, large_score, large_tests), large_out = _isolated(tmp_path, 48)
    out = small_out + large_out
    # both python items passed (the two solutions are right); pass@1 of python is 2 of 24, then 2 of 48
    assert re.search(r"pass@1 %\s+language=python\s+8\.3\s", out) and re.search(
        r"pass@1 %\s+language=python\s+4\.2\s", out
    ), out
    assert large_tests > 2 * small_tests * 0.95 and large_tests > 10_000_000
    # holding the items (as before: the whole release decoded, or each problem's tests twelve times)
    # would take more than the release's tests; reading a batch at a time takes what a batch needs
    # the import holds no more for twice the items; scoring grows only by its per-item bookkeeping (the
    # predictions, the kept scores: about 4 kB an item here), a fraction of the extra tests' bytes that holding
    # the items would add (in a fresh process, the small run peaked at 3.3 MB and the large at 4.4 MB: the
    # items without code no longer decode their tests, so that bookkeeping is most of what is left)
    assert large_import < 1.25 * small_import, (small_import, large_import)
    assert large_score - small_score < (large_tests - small_tests) / 4, (
        small_score,
        large_score,
        small_tests,
        large_tests,
    )
    assert large_score < large_tests / 2 and large_import < large_tests / 4, (large_import, large_score, large_tests)


def scoring_peak(tmp_path: Path, problems: int) -> tuple[int, dict]:
    """Traced peak bytes of the command line scoring a generated release of ``problems`` problems (tests
    of a few hundred bytes, every item answered without code: no program runs, so what the run holds
    is what grows), with its results file; and that file."""
    folder = tmp_path / f"n{problems}"
    folder.mkdir()
    release = write_release(Shape(problems=problems, tests=2, test_bytes=100), folder / "release.jsonl", seed=problems)
    assert write_predictions(release, folder / "predictions.jsonl", LANGUAGE_KEYS, []) == 0
    write_items(MultiLCBEvaluator().import_release(release.path), folder / "items.jsonl")
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        assert (
            main(
                [
                    "score",
                    "--benchmark",
                    "multi-lcb",
                    "--dataset",
                    str(folder / "items.jsonl"),
                    "--predictions",
                    str(folder / "predictions.jsonl"),
                    "--out",
                    str(folder / "results.json"),
                ]
            )
            == 0
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, json.loads((folder / "results.json").read_text())


def test_scoring_twice_the_items_holds_no_more_than_the_inputs_grow(tmp_path, capsys):
    small_peak, small = scoring_peak(tmp_path, 150)
    large_peak, large = scoring_peak(tmp_path, 300)
    capsys.readouterr()
    # every item scored and written, in the items file's order (problems in file order, languages in order)
    expected = [f"gen{n:05d}/{language}" for n in range(300) for language in LANGUAGE_KEYS]
    assert [s["item_id"] for s in large["item_scores"]] == expected
    assert [s["item_id"] for s in small["item_scores"]] == expected[: 150 * 12]
    # nothing passed: every sample answered without code
    headline = next(m for m in large["metrics"] if m["key"] == "pass@1" and not m["slice"])
    no_code = next(m for m in large["metrics"] if m["key"] == "verdict_share" and m["slice"] == {"verdict": "no_code"})
    assert (headline["value"], headline["n"], no_code["value"]) == (0.0, 3600, 1.0)
    # 1,800 more items: what grows is the inputs read whole (the predictions, about 0.7 kB an item as
    # objects, and the items file's index); a result kept per item (its score and detail as the command
    # line used to keep them until the end, and its dict for the results file) is over 4 kB more, which
    # 2 kB an item would not hold
    grown = (large_peak - small_peak) / (1800)
    assert grown < 2000, (small_peak, large_peak, grown)
