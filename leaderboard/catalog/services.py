"""Writes to the catalog: syncing benchmarks with the evaluator registry, importing dataset versions
and registering models."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.text import slugify

from evaluators.core import BENCHMARKS, Item, evaluator_for
from evaluators.core import files as evaluator_files
from leaderboard import pagecache
from leaderboard.arena.catalog_link import reserved_name_problem
from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.media import StorageMedia, new_prefix
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.catalog.unscored_boards import BOARDS


def benchmarks_sync() -> list[Benchmark]:
    """Create or update the hosted benchmarks: the registry's rows (name, summary, and the evaluator's
    modality, metric columns and slices), then the boards no evaluator scores (the arena), in that
    order. A row neither list names any more (no evaluator, no dataset, no run) is deleted."""
    fields: list[dict[str, Any]] = []
    for row in BENCHMARKS:
        evaluator = evaluator_for(row.key)
        stored = Benchmark.objects.filter(slug=row.key).values_list("slice_dimensions", flat=True).first()
        known = {d["key"]: d.get("values", []) for d in stored or []}
        fields.append(
            {
                "slug": row.key,
                "name": row.name,
                "summary": row.summary,
                "modality": evaluator.generation().modality,
                "kind": "static",
                "evaluator_key": row.key,
                "metric_columns": [asdict(c) for c in evaluator.metric_columns],
                # a dimension without fixed values (PoliCon's topics) keeps those its dataset has
                "slice_dimensions": [
                    {
                        "key": d.key,
                        "label": d.label,
                        "values": list(d.values) or known.get(d.key, []),
                        "value_labels": [list(pair) for pair in d.value_labels],
                    }
                    for d in evaluator.presentation().slice_dimensions
                ],
            }
        )
    fields += [
        {
            "slug": b.slug,
            "name": b.name,
            "summary": b.summary,
            "modality": b.modality,
            "kind": b.kind,
            "evaluator_key": "",
        }
        for b in BOARDS
    ]
    rows = [
        Benchmark.objects.update_or_create(slug=f.pop("slug"), defaults={**f, "position": position})[0]
        for position, f in enumerate(fields)
    ]
    # a placeholder neither list names any more (IndicVisionBench's one row became three leaderboards)
    # goes; a benchmark with an evaluator (one an operator added) or with data stays
    Benchmark.objects.exclude(slug__in=[row.slug for row in rows]).filter(
        evaluator_key="", dataset_versions__isnull=True, runs__isnull=True
    ).delete()
    pagecache.boards_changed()
    return rows


def dataset_version_import(
    *,
    benchmark: Benchmark,
    release_path: Path,
    tag: str,
    make_current: bool = True,
    stored: Callable[[DatasetVersion], None] | None = None,
) -> DatasetVersion:
    """Import a benchmark's released file into a new DatasetVersion (normalized items in storage, and
    its images, if any, under the version's own media prefix, each once by content hash).

    Raises evaluators.core.DatasetError naming the record and field if the release is malformed;
    nothing is stored in that case. ``stored`` is called in the transaction that stores the version (the
    chain ``leaderboard.chains.datasets`` files the board's changelog there).
    """
    if not benchmark.evaluator_key:
        raise ValueError(f"benchmark '{benchmark.slug}' has no evaluator yet, so its datasets cannot be imported")
    if DatasetVersion.objects.filter(benchmark=benchmark, tag=tag).exists():
        raise ValueError(f"dataset version '{tag}' of '{benchmark.slug}' exists already; choose another --tag")
    evaluator = configured_evaluator(benchmark)
    media = StorageMedia(new_prefix(benchmark.slug, tag))
    key = ""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # validates everything before any row is written; images go to storage as they are read, and
            # items to a local file as they are made: only the item being imported is ever in memory
            items_path = Path(tmp) / "items.jsonl"
            evaluator_files.write_items(evaluator.import_release(release_path, media=media), items_path)
            items = evaluator_files.open_items(items_path)
            notes = [asdict(note) for note in evaluator.presentation().dataset_notes(items)]
            content_hash = evaluator_files.file_sha256(items_path)
            with items_path.open("rb") as handle:  # streamed to storage, never read whole
                key = default_storage.save(f"datasets/{benchmark.slug}/{tag}-{content_hash[:12]}.jsonl", File(handle))
            with transaction.atomic():
                if make_current:
                    DatasetVersion.objects.filter(benchmark=benchmark, is_current=True).update(is_current=False)
                    _open_dimensions_fill(benchmark, items)
                version = DatasetVersion.objects.create(
                    benchmark=benchmark,
                    tag=tag,
                    content_hash=content_hash,
                    storage_key=key,
                    item_count=len(items),
                    item_ids=items.ids(),
                    is_current=make_current,
                    source_name=release_path.name,
                    notes=notes,
                    media_prefix=media.prefix if media.count else "",
                    media_count=media.count,
                    media_bytes=media.bytes,
                )
                pagecache.boards_changed()
                if stored is not None:
                    stored(version)
    except BaseException:
        if key:
            default_storage.delete(key)  # no file without its row
        media.delete_written()
        raise
    return version


def dataset_version_make_current(
    *, version: DatasetVersion, changed: Callable[[DatasetVersion], None] | None = None
) -> DatasetVersion:
    """Make an imported version its benchmark's current one (the board then shows the runs scored on it);
    ``changed`` is called in the transaction when it was not current yet (see ``dataset_version_import``)."""
    with transaction.atomic():
        DatasetVersion.objects.filter(benchmark=version.benchmark, is_current=True).exclude(pk=version.pk).update(
            is_current=False
        )
        if not version.is_current:
            version.is_current = True
            version.save(update_fields=["is_current"])
            pagecache.boards_changed()
            _open_dimensions_fill(version.benchmark, dataset_items(version))
            if changed is not None:
                changed(version)
    return version


def _open_dimensions_fill(benchmark: Benchmark, items: Iterable[Item]) -> None:
    """Give each slice dimension the evaluator lists without fixed values (PoliCon's topics) the values
    the new current dataset has, so the leaderboard can filter by them."""
    open_keys = {d.key for d in evaluator_for(benchmark.evaluator_key).presentation().slice_dimensions if not d.values}
    if not open_keys:
        return
    found: dict[str, set[str]] = {key: set() for key in open_keys}
    for item in items:  # one pass over the items
        for key in open_keys:
            if key in item.slices:
                found[key].add(item.slices[key])
    dimensions = [
        dict(d, values=_ordered(found[d["key"]])) if d["key"] in open_keys else d for d in benchmark.slice_dimensions
    ]
    Benchmark.objects.filter(pk=benchmark.pk).update(slice_dimensions=dimensions)
    pagecache.boards_changed()
    benchmark.slice_dimensions = dimensions


def _ordered(values: set[str]) -> list[str]:
    """Slice values in reading order: by number when every one is a number (frame counts: 8, 16, 32), else by text."""
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def dataset_items_path(version: DatasetVersion, cache_dir: Path | None = None) -> Path:
    """Local copy of a version's items file (by default in ``VAR_DIR/cache/datasets``), fetched from
    storage once, streamed to disk and hashed as it comes, and checked against its recorded hash."""
    cache_dir = cache_dir or Path(settings.VAR_DIR) / "cache" / "datasets"
    path = cache_dir / f"{version.content_hash}.jsonl"
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        # a name of its own: two workers of one machine may fetch the same version at once
        with (
            tempfile.NamedTemporaryFile(
                dir=cache_dir, prefix=f"{version.content_hash}.", suffix=".part", delete=False
            ) as partial,
            default_storage.open(version.storage_key, "rb") as handle,
        ):
            try:
                while chunk := handle.read(evaluator_files.CHUNK_BYTES):
                    digest.update(chunk)
                    partial.write(chunk)
            except BaseException:
                Path(partial.name).unlink(missing_ok=True)
                raise
        if digest.hexdigest() != version.content_hash:
            Path(partial.name).unlink(missing_ok=True)
            raise OSError(f"dataset file {version.storage_key} does not match its recorded hash")
        Path(partial.name).replace(path)
    return path


def dataset_items(version: DatasetVersion) -> evaluator_files.ItemsFile:
    """A version's items, read on demand from the local copy through its index (built on first use,
    from the copy, when the copy was just fetched). Items files written before shared parts existed
    (each Multi-LCB language item holding its problem's tests) are read the same way."""
    return evaluator_files.open_items(dataset_items_path(version))


def model_slug(name: str, *, is_public: bool) -> str:
    """A free slug for a new model. Slugs are unique across all users, so a private model takes a
    slug with a random tail (``name-k3x9q2``): a bare or ``-2`` slug would tell anyone registering
    the same name that a hidden model exists. Public models take the bare name, then ``-2``, ``-3``...
    since every public slug is visible anyway."""
    base = slugify(name)[:120] or "model"
    if not is_public:
        while True:
            slug = f"{base}-{secrets.token_hex(4)}"
            if not Model.objects.filter(slug=slug).exists():
                return slug
    slug, n = base, 1
    while Model.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def new_model_name_problem(name: str) -> str:
    """Why a new catalog model may not be called ``name`` ("" when it may): the arena's rule
    (``arena.catalog_link.reserved_name_problem``: not a contestant's name), asked through the catalog by
    the apps below the arena (model hosting)."""
    return reserved_name_problem(name)


def model_get_or_create(
    *,
    owner: User,
    name: str,
    is_public: bool = True,
    organization: str = "",
    release_date: dt.date | None = None,
    modality: str = "text",
) -> Model:
    """The owner's model of this name, created on first use with a unique slug (and ``modality``); a new
    model may not take an arena contestant's name (``arena.catalog_link``): ValueError naming the field."""
    name = name.strip()
    if not name:
        raise ValueError("model name: must not be empty")
    existing = Model.objects.filter(owner=owner, name=name).first()
    if existing:
        if release_date and existing.release_date is None:
            existing.release_date = release_date
            existing.save(update_fields=["release_date"])
            pagecache.boards_changed()
        return existing
    reserved = new_model_name_problem(name)
    if reserved:
        raise ValueError(f"model name: {reserved}")
    model = Model.objects.create(
        owner=owner,
        name=name,
        slug=model_slug(name, is_public=is_public),
        is_public=is_public,
        organization=organization,
        release_date=release_date,
        modality=modality,
    )
    pagecache.boards_changed()
    return model
