"""One identity per arena contestant. A contestant's name is reserved: no catalog model may be
registered under it (or under a look-alike differing only in case, spaces or punctuation), through the
page, the API or a submission's model name. The catalog and the arena share one record through
``ArenaModel.catalog_model``, set by staff: a model's profile, the models index and the comparison show
a contestant's rating, votes and citation statistics only on the catalog model it is linked to, never
on a catalog model that merely has the same name."""

from __future__ import annotations

import re
from collections.abc import Iterable

from leaderboard.arena.models import ArenaModel


def _key(name: str) -> str:
    """A name as compared for reservation: case folded, everything but letters and digits dropped."""
    return re.sub(r"[\W_]+", "", name.casefold())


def reserved_name_problem(name: str) -> str:
    """Why a new catalog model may not be called ``name`` ("" when it may): it is, or looks like, the
    name of an arena contestant."""
    key = _key(name)
    if not key:
        return ""
    taken = next((n for n in ArenaModel.objects.values_list("name", flat=True) if _key(n) == key), None)
    if taken is None:
        return ""
    return (
        f"'{name.strip()}' is reserved: it is the name of the Search Arena contestant '{taken}', whose rating and "
        f"votes "
        "belong to that contestant only. Choose another name (a contestant's own catalog record is linked by the "
        "site's staff)."
    )


def contestant_name_of(model_id: int) -> str | None:
    """The name of the arena contestant linked to the catalog model ``model_id``, or None."""
    return ArenaModel.objects.filter(catalog_model_id=model_id).values_list("name", flat=True).first()


def contestant_names(model_ids: Iterable[int] | None = None) -> dict[int, str]:
    """Catalog model id -> the linked contestant's name (every linked one, or those of ``model_ids``)."""
    rows = ArenaModel.objects.filter(catalog_model__isnull=False)
    if model_ids is not None:
        rows = rows.filter(catalog_model_id__in=list(model_ids))
    return {int(pk): name for pk, name in rows.values_list("catalog_model_id", "name")}
