"""The items file of a dataset version, written once and read item by item through an index.

Format: JSON Lines, one record a line, of two kinds:

- ``{"shared": KEY, "payload": {...}}``: payload fields several items have in common (a Multi-LCB
  problem's statement and tests, the same for its twelve language items), written once, before the
  first item that refers to it;
- ``{"id": ID, "shared": KEY, "slices": {...}, "payload": {...}}``: one item (``"shared"`` only when it
  refers to a shared part); read back, its payload is the shared part's fields with its own over them.

Files written before shared parts existed (every item whole on its line, keys sorted) are read the
same way: they are items without a shared part.

:func:`write_items` streams items to the file and writes its index beside it (``<file>.index``: each
item's and each shared part's byte offset and length, and the file's size and modification time it
describes). :class:`ItemsFile` reads only the lines asked for, through that index (built by one
streaming pass over the file when it is missing or stale), and keeps the last few shared parts it
decoded, so a process scoring a chunk of items holds that chunk, never the dataset.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any, overload

from evaluators.core.types import DatasetError, Item

INDEX_FORMAT = "items-index/1"
#: bytes read at a time when a file is hashed or copied
CHUNK_BYTES = 1024 * 1024
#: shared parts kept decoded by a reader (a chunk of 64 Multi-LCB items spans about six problems)
SHARED_CACHE = 8
_ITEM_PREFIX = '{"id": "'
_SHARED_PREFIX = '{"shared": "'
_SHARED_AFTER_ID = ', "shared": "'


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read a chunk at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def index_path(path: Path) -> Path:
    """Where the index of the items file ``path`` is kept."""
    return path.with_name(path.name + ".index")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _item_line(item_id: str, shared_key: str, slices: dict[str, str], payload: dict[str, Any]) -> str:
    # the id (and the shared key) first, so that an index is built from each line's head
    head = f'{{"id": {json.dumps(item_id, ensure_ascii=False)}'
    if shared_key:
        head += f', "shared": {json.dumps(shared_key, ensure_ascii=False)}'
    return f'{head}, "slices": {_dumps(slices)}, "payload": {_dumps(payload)}}}\n'


def _shared_line(key: str, payload: dict[str, Any]) -> str:
    return f'{{"shared": {json.dumps(key, ensure_ascii=False)}, "payload": {_dumps(payload)}}}\n'


@dataclass(frozen=True)
class Entry:
    """Where one record of an items file is: byte offset and length, and an item's shared part's key."""

    offset: int
    length: int
    shared_key: str = ""


@dataclass
class ItemsIndex:
    """Every item's and shared part's place in an items file (items in file order)."""

    items: dict[str, Entry]
    shared: dict[str, Entry]
    size: int
    mtime_ns: int

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": INDEX_FORMAT,
                "size": self.size,
                "mtime_ns": self.mtime_ns,
                "items": [[i, e.offset, e.length, e.shared_key] for i, e in self.items.items()],
                "shared": [[k, e.offset, e.length] for k, e in self.shared.items()],
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> ItemsIndex:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
            raise ValueError("not an items index")
        return cls(
            items={str(i): Entry(int(o), int(n), str(k)) for i, o, n, k in data["items"]},
            shared={str(k): Entry(int(o), int(n)) for k, o, n in data["shared"]},
            size=int(data["size"]),
            mtime_ns=int(data["mtime_ns"]),
        )

    def describes(self, path: Path) -> bool:
        stat = path.stat()
        return stat.st_size == self.size and stat.st_mtime_ns == self.mtime_ns

    def save(self, path: Path) -> None:
        """Write the index beside ``path`` (atomically: a reader never sees half an index)."""
        target = index_path(path)
        partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.part")
        partial.write_text(self.to_json(), encoding="utf-8")
        partial.replace(target)


class _SharedCheck:
    """The writer's check that items sharing a key are consecutive and share the same fields."""

    def __init__(self) -> None:
        self.written: set[str] = set()
        self.key = ""
        self.part: dict[str, Any] = {}

    def new_part(self, item: Item) -> dict[str, Any] | None:
        """The shared part to write before ``item`` (None: written already). Raises ValueError."""
        fields = item.shared_fields
        missing = [f for f in fields if f not in item.payload]
        if missing:
            raise ValueError(f"item {item.id}: shared field(s) {', '.join(missing)} not in its payload")
        if item.shared_key == self.key:
            if tuple(self.part) != fields or any(
                item.payload[f] is not self.part[f] and item.payload[f] != self.part[f] for f in fields
            ):
                raise ValueError(
                    f"item {item.id}: its shared part '{item.shared_key}' differs from the one written before it"
                )
            return None
        if item.shared_key in self.written:
            raise ValueError(f"item {item.id}: the items sharing '{item.shared_key}' are not consecutive")
        self.written.add(item.shared_key)
        self.key, self.part = item.shared_key, {f: item.payload[f] for f in fields}
        return self.part


def write_items(items: Iterable[Item], path: Path) -> int:
    """Stream ``items`` into the items file ``path`` and write its index; returns how many items.
    Items with a ``shared_key`` must come together (all the items of one key in a row)."""
    entries: dict[str, Entry] = {}
    shared: dict[str, Entry] = {}
    check = _SharedCheck()
    offset = 0
    with path.open("wb") as handle:
        for item in items:
            if item.id in entries:
                raise ValueError(f"item {item.id}: written twice")
            own = item.payload
            if item.shared_key:
                part = check.new_part(item)
                if part is not None:
                    data = _shared_line(item.shared_key, part).encode("utf-8")
                    handle.write(data)
                    shared[item.shared_key] = Entry(offset, len(data))
                    offset += len(data)
                own = {k: v for k, v in item.payload.items() if k not in item.shared_fields}
            data = _item_line(item.id, item.shared_key, item.slices, own).encode("utf-8")
            handle.write(data)
            entries[item.id] = Entry(offset, len(data), item.shared_key)
            offset += len(data)
    stat = path.stat()
    ItemsIndex(entries, shared, stat.st_size, stat.st_mtime_ns).save(path)
    return len(entries)


def _head(text: str, number: int, name: str) -> tuple[str, str, str]:
    """(kind, id or key, shared key) of one line, read from its head when written by write_items."""
    if text.startswith(_ITEM_PREFIX):
        item_id, end = scanstring(text, len(_ITEM_PREFIX))
        key = scanstring(text, end + len(_SHARED_AFTER_ID))[0] if text.startswith(_SHARED_AFTER_ID, end) else ""
        return "item", item_id, key
    if text.startswith(_SHARED_PREFIX):
        return "shared", scanstring(text, len(_SHARED_PREFIX))[0], ""
    try:  # another writer's key order: read the whole record
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{name} line {number}: not valid JSON ({exc.msg})") from None
    if not isinstance(record, dict):
        raise DatasetError(f"{name} line {number}: not a JSON object")
    if "id" in record:
        return "item", str(record["id"]), str(record.get("shared") or "")
    if "shared" in record:
        return "shared", str(record["shared"]), ""
    raise DatasetError(f"{name} line {number}: neither an item (no 'id') nor a shared part (no 'shared')")


def build_index(path: Path) -> ItemsIndex:
    """Index an items file by reading it once, line by line (a file fetched from storage, or one
    written before indexes were). Raises DatasetError naming the line of a malformed record."""
    stat = path.stat()
    items: dict[str, Entry] = {}
    shared: dict[str, Entry] = {}
    offset = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            length = len(raw)
            if raw.strip():
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DatasetError(f"{path.name} line {number}: not valid UTF-8 (byte {exc.start})") from None
                kind, name, key = _head(text, number, path.name)
                if kind == "shared":
                    shared[name] = Entry(offset, length)
                elif name in items:
                    raise DatasetError(f"{path.name} line {number}: item '{name}' appears twice")
                elif key and key not in shared:
                    raise DatasetError(
                        f"{path.name} line {number}: item '{name}' refers to the shared part '{key}', "
                        "which no line before it holds"
                    )
                else:
                    items[name] = Entry(offset, length, key)
            offset += length
    return ItemsIndex(items, shared, stat.st_size, stat.st_mtime_ns)


def load_index(path: Path) -> ItemsIndex:
    """The index of ``path``: the one written beside it if it still describes the file, else built
    now (and saved beside it when the folder can be written)."""
    try:
        index = ItemsIndex.from_json(index_path(path).read_text(encoding="utf-8"))
        if index.describes(path):
            return index
    except (OSError, ValueError, KeyError, TypeError):
        pass
    index = build_index(path)
    try:
        index.save(path)
    except OSError:
        pass  # a read-only folder: the index is rebuilt by the next reader
    return index


class ItemsFile(Sequence[Item]):
    """The items of one items file, read on demand through its index: ``len``, ``ids()``, an item by
    position or id, a chunk of items (:meth:`get_many`, one pass in file order) or all of them in
    order (iteration streams). Safe to share between threads."""

    def __init__(self, path: Path, index: ItemsIndex, ids: Sequence[str] | None = None) -> None:
        self.path = Path(path)
        self.entries = index
        self._ids: list[str] = list(index.items) if ids is None else list(ids)
        self._shared: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> ItemsFile:
        """The items file at ``path``, with its index (raises DatasetError for a malformed file)."""
        path = Path(path)
        try:
            return cls(path, load_index(path))
        except OSError as exc:
            raise DatasetError(f"{path}: cannot be read ({exc.strerror})") from None

    def ids(self) -> list[str]:
        """Every item id, in order."""
        return list(self._ids)

    def has(self, item_id: str) -> bool:
        return item_id in self.entries.items

    def select(self, ids: Iterable[str]) -> ItemsFile:
        """The same file narrowed to ``ids`` (in that order; KeyError for an id it does not hold)."""
        chosen = list(ids)
        for item_id in chosen:
            if item_id not in self.entries.items:
                raise KeyError(item_id)
        return ItemsFile(self.path, self.entries, chosen)

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, position: int) -> Item: ...

    @overload
    def __getitem__(self, position: slice) -> list[Item]: ...

    def __getitem__(self, position: int | slice) -> Item | list[Item]:
        if isinstance(position, slice):
            return self.get_many(self._ids[position])
        return self.get_many([self._ids[position]])[0]

    def __iter__(self) -> Iterator[Item]:
        step = 64
        for start in range(0, len(self._ids), step):
            yield from self.get_many(self._ids[start : start + step])

    def get(self, item_id: str) -> Item:
        return self.get_many([item_id])[0]

    def get_many(self, ids: Sequence[str], *, without_shared: Collection[str] = ()) -> list[Item]:
        """The items ``ids`` (in that order), reading only their lines and their shared parts, but for
        the items in ``without_shared``, whose shared part is neither read nor decoded (their payload
        is their own fields, ``shared_fields`` empty: see ``Evaluator.needs_shared_part``). KeyError for
        an id the file does not hold."""
        entries = [(item_id, self.entries.items[item_id]) for item_id in ids]
        found: dict[str, Item] = {}
        with self._lock, self.path.open("rb") as handle:
            for item_id, entry in sorted(entries, key=lambda pair: pair[1].offset):
                record = self._record(handle, entry)
                own = record.get("payload")
                if not isinstance(own, dict) or not isinstance(record.get("slices", {}), dict):
                    raise DatasetError(f"{self.path.name}: item '{item_id}' is not a valid item")
                shared = (
                    self._shared_part(handle, entry.shared_key)
                    if entry.shared_key and item_id not in without_shared
                    else {}
                )
                found[item_id] = Item(
                    id=item_id,
                    slices={str(k): str(v) for k, v in record.get("slices", {}).items()},
                    payload={**shared, **own} if shared else own,
                    shared_key=entry.shared_key,
                    shared_fields=tuple(shared),
                )
        return [found[item_id] for item_id in ids]

    def _record(self, handle: Any, entry: Entry) -> dict[str, Any]:
        handle.seek(entry.offset)
        raw = handle.read(entry.length)
        try:
            record = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DatasetError(
                f"{self.path.name}: the record at byte {entry.offset} is not valid JSON ({exc}); "
                "the file changed after it was indexed"
            ) from None
        if not isinstance(record, dict):
            raise DatasetError(f"{self.path.name}: the record at byte {entry.offset} is not a JSON object")
        return record

    def _shared_part(self, handle: Any, key: str) -> dict[str, Any]:
        part = self._shared.get(key)
        if part is not None:
            self._shared.move_to_end(key)
            return part
        record = self._record(handle, self.entries.shared[key])
        payload = record.get("payload")
        if record.get("shared") != key or not isinstance(payload, dict):
            raise DatasetError(f"{self.path.name}: the shared part '{key}' is not where its index says")
        self._shared[key] = payload
        while len(self._shared) > SHARED_CACHE:
            self._shared.popitem(last=False)
        return payload


def open_items(path: Path) -> ItemsFile:
    """The items file at ``path``, read on demand (see :class:`ItemsFile`)."""
    return ItemsFile.open(path)


def read_items(path: Path) -> list[Item]:
    """Every item of an items file, in memory (for small datasets and tests; scoring reads on demand)."""
    return list(open_items(path))
