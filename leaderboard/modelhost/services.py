"""Writes for running models: registering a model with its source (endpoint key encrypted at rest),
pre-flight (queued on ``cpu`` when a model is registered, re-runnable), and resumable weight
uploads (create, put part, complete) over uploads.PartStore.

Endpoints are called from the site's own network, so an endpoint on a loopback, private, link-local,
multicast, reserved or unspecified address is refused (after DNS resolution) at registration and
again each time it is reached (pre-flight, generation: DNS can change), unless
``ALLOW_PRIVATE_ENDPOINTS`` is set (development, the tests).

A pre-flight always ends: a passed or failed report naming the field at fault, whatever the model's
files hold; "could not check" (storage unreachable: not the model's fault) is tried again
``PREFLIGHT_RETRIES`` times, the model staying pending meanwhile, and then reported as failed with
that reason; an unexpected error is logged and reported as a failed pre-flight saying so."""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import logging
import re
import socket
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from evaluators.core import modality as modalities
from evaluators.core.types import InfrastructureError
from evaluators.llm.types import Endpoint, ModelError, redact_userinfo
from leaderboard import pagecache, task_sends
from leaderboard.accounts import policy
from leaderboard.catalog.models import Model
from leaderboard.catalog.services import model_slug, new_model_name_problem
from leaderboard.modelhost import secrets
from leaderboard.modelhost.models import UploadPart, WeightsUpload
from leaderboard.modelhost.uploads import fetch_weights, part_store

SHA256 = re.compile(r"^[0-9a-f]{64}$")
log = logging.getLogger(__name__)


class ModelRefused(ValueError):
    """A registration or upload that cannot be accepted; ``field`` names the field at fault."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


# --- registration --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSource:
    """What a submitter gives to register a model (validated by model_register)."""

    source: str
    hf_repo: str = ""
    hf_revision: str = ""
    weights_upload_id: int | None = None
    endpoint_base_url: str = ""
    endpoint_model: str = ""
    endpoint_api_key: str = ""

    def only_its_fields(self) -> ModelSource:
        """This source with the other sources' fields emptied (a form sends them all), so a model never
        stores, say, an unchecked endpoint address next to its Hugging Face repo."""
        keep = {
            "hf": ("hf_repo", "hf_revision"),
            "weights": ("weights_upload_id",),
            "endpoint": ("endpoint_base_url", "endpoint_model", "endpoint_api_key"),
        }.get(self.source, ())
        return ModelSource(source=self.source, **{name: getattr(self, name) for name in keep})


def _check_source(owner: User, spec: ModelSource) -> WeightsUpload | None:
    if spec.source == Model.SOURCE_HF:
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", spec.hf_repo.strip()):
            raise ModelRefused(
                "hf_repo: give the repository as owner/name, e.g. Qwen/Qwen2.5-0.5B-Instruct.", field="hf_repo"
            )
        if not spec.hf_revision.strip():
            raise ModelRefused(
                "hf_revision: pin a revision (a commit sha or a tag) so the scores stay reproducible.",
                field="hf_revision",
            )
    elif spec.source == Model.SOURCE_WEIGHTS:
        upload = (
            WeightsUpload.objects.filter(pk=spec.weights_upload_id, owner=owner).first()
            if spec.weights_upload_id
            else None
        )
        if upload is None:
            raise ModelRefused("weights_upload: choose one of your uploads.", field="weights_upload")
        if upload.status != WeightsUpload.STATUS_COMPLETE:
            raise ModelRefused(
                f"weights_upload: upload #{upload.pk} is not complete yet; send its remaining parts and complete it.",
                field="weights_upload",
            )
        return upload
    elif spec.source == Model.SOURCE_ENDPOINT:
        if not re.match(r"^https?://[^\s/]+", spec.endpoint_base_url.strip()):
            raise ModelRefused(
                "endpoint_base_url: give the OpenAI-compatible base URL, e.g. https://api.example.com/v1.",
                field="endpoint_base_url",
            )
        if redact_userinfo(spec.endpoint_base_url.strip()) != spec.endpoint_base_url.strip():
            raise ModelRefused(
                "endpoint_base_url: the URL holds a user name or password (before '@'); the address is shown to "
                "anyone who may see the model, so give it without them and put the key in the API key field "
                "(stored encrypted, never shown).",
                field="endpoint_base_url",
            )
        if not spec.endpoint_model.strip():
            raise ModelRefused("endpoint_model: give the model name the endpoint expects.", field="endpoint_model")
        problem = endpoint_address_problem(spec.endpoint_base_url.strip())
        if problem:
            raise ModelRefused(f"endpoint_base_url: {problem}.", field="endpoint_base_url")
    elif spec.source != Model.SOURCE_PREDICTIONS:
        raise ModelRefused(f"source: must be one of {', '.join(k for k, _ in Model.SOURCE_CHOICES)}.", field="source")
    return None


def model_register(
    *,
    owner: User,
    name: str,
    spec: ModelSource,
    organization: str = "",
    modality: str = "text",
    is_public: bool = True,
    release_date: dt.date | None = None,
) -> Model:
    """Register a new model of the owner and queue its pre-flight. The API key is stored encrypted
    and never returned."""
    name = name.strip()
    if not name:
        raise ModelRefused("name: must not be empty.", field="name")
    reserved = new_model_name_problem(name)
    if reserved:
        raise ModelRefused(f"name: {reserved}", field="name")
    if modality not in modalities.MODALITIES:
        raise ModelRefused(f"modality: one of {', '.join(modalities.MODALITIES)}.", field="modality")
    spec = spec.only_its_fields()
    upload = _check_source(owner, spec)
    with transaction.atomic():
        if Model.objects.filter(owner=owner, name=name).exists():
            raise ModelRefused(f"name: you already have a model named '{name}'.", field="name")
        slug = model_slug(name, is_public=is_public)
        try:
            model = Model.objects.create(
                owner=owner,
                name=name,
                slug=slug,
                organization=organization,
                modality=modality,
                is_public=is_public,
                release_date=release_date,
                source=spec.source,
                hf_repo=spec.hf_repo.strip(),
                hf_revision=spec.hf_revision.strip(),
                weights_upload=upload,
                endpoint_base_url=spec.endpoint_base_url.strip().rstrip("/"),
                endpoint_model=spec.endpoint_model.strip(),
                endpoint_api_key_encrypted=secrets.encrypt(spec.endpoint_api_key.strip()),
                preflight_status=Model.PREFLIGHT_PENDING
                if spec.source != Model.SOURCE_PREDICTIONS
                else Model.PREFLIGHT_PASSED,
            )
        except IntegrityError:
            raise ModelRefused(f"name: you already have a model named '{name}'.", field="name") from None
        pagecache.boards_changed()
        if model.needs_generation:
            model_preflight_request(model=model)
    return model


def model_set_api_key(*, model: Model, user: User, api_key: str) -> None:
    """Replace the endpoint's key (write-only) and pre-flight again."""
    _require_owner(model, user)
    with transaction.atomic():
        Model.objects.filter(pk=model.pk).update(endpoint_api_key_encrypted=secrets.encrypt(api_key.strip()))
        model_preflight_request(model=model)


def _require_owner(model: Model, user: User | AnonymousUser) -> None:
    if not policy.can_manage(user, model):
        raise PermissionError("Only the model's owner or staff can change it.")


# --- pre-flight ----------------------------------------------------------------------------------


class PreflightAlreadyQueued(ModelRefused):
    """A user asked for a pre-flight while one is queued: nothing new is queued."""


def model_preflight_request(*, model: Model, user: User | AnonymousUser | None = None) -> None:
    """Mark the model pending and queue its pre-flight on ``cpu`` once the transaction commits.

    A user's request (``user`` given) queues nothing while a pre-flight is pending, unless that one was
    queued more than PREFLIGHT_REQUEUE_AFTER seconds ago (its message may have been lost): one compare-
    and-set UPDATE, so repeated clicks or API calls cannot flood the queue the runs share."""
    now = timezone.now()
    rows = Model.objects.filter(pk=model.pk)
    if user is not None:
        _require_owner(model, user)
        stale = now - dt.timedelta(seconds=settings.PREFLIGHT_REQUEUE_AFTER)
        rows = rows.filter(
            ~Q(preflight_status=Model.PREFLIGHT_PENDING)
            | Q(preflight_requested_at__isnull=True)
            | Q(preflight_requested_at__lt=stale)
        )
    if not rows.update(preflight_status=Model.PREFLIGHT_PENDING, preflight_requested_at=now):
        raise PreflightAlreadyQueued(
            "A pre-flight of this model is already queued; its report appears on the model's page "
            "when it ends (ask again in a few minutes if it never does)."
        )
    task_sends.preflight_model(model.pk)


class EndpointNotAllowed(ModelError):
    """The endpoint's host resolves to an address the site does not call (see the module docstring)."""

    def __init__(self, message: str) -> None:
        super().__init__("endpoint", message)


def endpoint_address_problem(base_url: str) -> str | None:
    """Why the site must not call ``base_url`` (its host resolves to a non-public address, or does not
    resolve), or None when it may. Always None when ALLOW_PRIVATE_ENDPOINTS is set."""
    if settings.ALLOW_PRIVATE_ENDPOINTS:
        return None
    url = urllib.parse.urlsplit(base_url)
    try:
        port = url.port or (443 if url.scheme == "https" else 80)
    except ValueError:
        return f"the port in {base_url!r} is not a number from 0 to 65535"
    if url.scheme not in ("http", "https") or not url.hostname:
        return f"{base_url!r} is not an http(s) URL with a host"
    try:
        resolved = socket.getaddrinfo(url.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        return f"the host {url.hostname!r} does not resolve ({getattr(exc, 'strerror', None) or exc})"
    for *_, sockaddr in resolved:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        if not address.is_global or address.is_multicast:
            kind = next(
                (
                    k
                    for k, is_kind in (
                        ("loopback", address.is_loopback),
                        ("link-local", address.is_link_local),
                        ("multicast", address.is_multicast),
                        ("unspecified", address.is_unspecified),
                        ("private", address.is_private),
                    )
                    if is_kind
                ),
                "reserved",
            )
            return (
                f"the host {url.hostname!r} resolves to {address}, a {kind} address; the site only calls endpoints "
                "on public addresses"
            )
    return None


def model_endpoint(model: Model) -> Endpoint:
    """The model's endpoint with its key decrypted (workers only). Raises EndpointNotAllowed when its
    host now resolves to an address the site does not call."""
    problem = endpoint_address_problem(model.endpoint_base_url)
    if problem:
        raise EndpointNotAllowed(f"endpoint_base_url: {problem}")
    return Endpoint(model.endpoint_base_url, model.endpoint_model, secrets.decrypt(model.endpoint_api_key_encrypted))


#: the field a pre-flight blames when reaching the model fails (ModelError), by source
_SOURCE_FIELD = {Model.SOURCE_ENDPOINT: "base_url", Model.SOURCE_WEIGHTS: "weights", Model.SOURCE_HF: "hf_repo"}


def model_path(model: Model) -> str:
    """What the server loads: the local directory of uploaded weights, or the HF repo id."""
    if model.source == Model.SOURCE_WEIGHTS:
        upload = model.weights_upload
        if upload is None or upload.status != upload.STATUS_COMPLETE:
            raise ModelError("model_load", "uploaded weights: the model has no completed upload")
        return str(fetch_weights(storage_key=upload.storage_key, sha256=upload.sha256))
    return model.hf_repo


def model_preflight_run(*, model_id: int) -> str:
    """Check the model on a CPU (evaluators.llm.preflight) and store the report. Returns the status;
    never raises for anything the model, its files or the storage do (see the module docstring)."""
    from evaluators.llm import preflight

    model = Model.objects.select_related("weights_upload").get(pk=model_id)
    if model.source not in _SOURCE_FIELD:
        return model.preflight_status
    try:
        if model.source == Model.SOURCE_ENDPOINT:
            report = preflight.preflight_endpoint(model_endpoint(model))
        elif model.source == Model.SOURCE_WEIGHTS:
            report = preflight.preflight_weights(model_path(model), required_modalities=(model.modality,))
        else:
            report = preflight.preflight_hf(model.hf_repo, model.hf_revision, required_modalities=(model.modality,))
        data: dict[str, Any] = {
            "ok": bool(report.ok),
            "problems": [list(p) for p in report.problems],
            "facts": dict(report.facts),
        }
    except InfrastructureError as exc:
        return _preflight_could_not_check(model, exc)
    except ModelError as exc:
        data = {"ok": False, "problems": [[_SOURCE_FIELD[model.source], str(exc)]], "facts": {}}
    except Exception as exc:  # a pre-flight must end; the traceback goes to the worker's log
        log.exception("pre-flight of model %s stopped on an unexpected error", model_id)
        data = {
            "ok": False,
            "facts": {},
            "problems": [
                [
                    "preflight",
                    f"the pre-flight stopped on an unexpected error "
                    f"({type(exc).__name__}: {str(exc)[:300]}); fix what it names "
                    "and run the pre-flight again, or ask the site's staff",
                ]
            ],
        }
    status = Model.PREFLIGHT_PASSED if data["ok"] else Model.PREFLIGHT_FAILED
    updates: dict[str, Any] = {
        "preflight_status": status,
        "preflight_report": data,
        "preflight_checked_at": timezone.now(),
    }
    if isinstance(data["facts"].get("parameters"), int) and not model.parameters:
        updates["parameters"] = data["facts"]["parameters"]
    Model.objects.filter(pk=model.pk).update(**updates)
    return status


def _preflight_could_not_check(model: Model, exc: Exception) -> str:
    """Storage (or another part of the site) failed: not the model's fault. Stay pending and try
    again later, PREFLIGHT_RETRIES times with a doubling delay; then fail saying the check could not run."""
    previous = model.preflight_report if isinstance(model.preflight_report, dict) else {}
    attempt = int(previous.get("infrastructure_attempts", 0)) + 1
    reason = f"could not check the model: {exc} (a fault of the site, not of the model)"
    data: dict[str, Any]
    if attempt <= settings.PREFLIGHT_RETRIES:
        delay = settings.PREFLIGHT_RETRY_SECONDS * 2 ** (attempt - 1)
        data = {
            "ok": False,
            "problems": [],
            "facts": {},
            "infrastructure_attempts": attempt,
            "notice": f"{reason}; trying again in {delay:g} s (attempt {attempt} of {settings.PREFLIGHT_RETRIES})",
        }
        status = Model.PREFLIGHT_PENDING
    else:
        data = {
            "ok": False,
            "facts": {},
            "problems": [["preflight", f"{reason}; tried {attempt} times; run the pre-flight again later"]],
        }
        status = Model.PREFLIGHT_FAILED
    log.warning("pre-flight of model %s: %s", model.pk, data.get("notice") or data["problems"][0][1])
    with transaction.atomic():
        Model.objects.filter(pk=model.pk).update(
            preflight_status=status, preflight_report=data, preflight_checked_at=timezone.now()
        )
        if status == Model.PREFLIGHT_PENDING:
            task_sends.preflight_model(model.pk, countdown=delay)
    return status


# --- resumable weight uploads ---------------------------------------------------------------------


def upload_create(*, owner: User, filename: str, size: int, sha256: str) -> WeightsUpload:
    """Start an upload of a tar archive of ``size`` bytes; returns it with its part size."""
    filename = filename.strip().replace("/", "_")[:200]
    sha256 = sha256.strip().lower()
    if not filename:
        raise ModelRefused("filename: must not be empty.", field="filename")
    if not (0 < size <= settings.UPLOAD_MAX_BYTES):
        raise ModelRefused(f"size: must be between 1 byte and {settings.UPLOAD_MAX_BYTES} bytes.", field="size")
    if not SHA256.match(sha256):
        raise ModelRefused("sha256: give the archive's sha256 as 64 hexadecimal digits.", field="sha256")
    open_uploads = WeightsUpload.objects.filter(owner=owner, status=WeightsUpload.STATUS_OPEN).count()
    if open_uploads >= settings.UPLOADS_OPEN_PER_USER:
        raise ModelRefused(
            f"You have {open_uploads} unfinished uploads, the most one account may have open: finish one "
            "(send its missing parts and complete it) before starting another.",
            field="filename",
        )
    key = f"weights/{owner.pk}/{uuid.uuid4().hex}-{filename}"
    store = part_store()
    upload_id = store.begin(key)
    return WeightsUpload.objects.create(
        owner=owner,
        filename=filename,
        size=size,
        sha256=sha256,
        part_size=settings.UPLOAD_PART_BYTES,
        storage_key=key,
        backend_upload_id=upload_id,
    )


def upload_part_size(*, upload: WeightsUpload, user: User, number: int) -> int:
    """The size part ``number`` must have, once the user may send it (an API view checks the
    request's Content-Length against it before reading the body)."""
    _require_upload_owner(upload, user)
    if upload.status != WeightsUpload.STATUS_OPEN:
        raise ModelRefused(f"upload #{upload.pk} is complete already; start a new upload to change it.", field="part")
    if not (1 <= number <= upload.part_count):
        raise ModelRefused(
            f"part: number {number} is out of range; this upload has parts 1 to {upload.part_count}.", field="part"
        )
    return upload.expected_part_size(number)


def upload_put_part(*, upload: WeightsUpload, user: User, number: int, data: bytes) -> UploadPart:
    """Store part ``number`` (1-based); re-sending a part replaces it."""
    expected = upload_part_size(upload=upload, user=user, number=number)
    if len(data) != expected:
        raise ModelRefused(
            f"part {number}: got {len(data)} bytes, expected {expected} (parts are {upload.part_size} bytes "
            "except the last).",
            field="part",
        )
    etag = part_store().put_part(
        upload.storage_key, upload.backend_upload_id, number, (number - 1) * upload.part_size, data
    )
    part, _ = UploadPart.objects.update_or_create(
        upload=upload,
        number=number,
        defaults={"size": len(data), "etag": etag, "sha256": hashlib.sha256(data).hexdigest()},
    )
    return part


def upload_complete(*, upload: WeightsUpload, user: User) -> WeightsUpload:
    """Check that every part is there and the sizes add up, then join them. Idempotent."""
    _require_upload_owner(upload, user)
    if upload.status == WeightsUpload.STATUS_COMPLETE:
        return upload
    parts = list(upload.parts.order_by("number").values_list("number", "etag", "size"))
    missing = sorted(set(range(1, upload.part_count + 1)) - {n for n, _, _ in parts})
    if missing:
        shown = ", ".join(map(str, missing[:20])) + (" ..." if len(missing) > 20 else "")
        raise ModelRefused(
            f"parts: {len(missing)} part(s) missing: {shown}; send them, then complete again.", field="parts"
        )
    received = sum(size for _, _, size in parts)
    if received != upload.size:
        raise ModelRefused(
            f"size: received {received} bytes in all, but the upload declared {upload.size}.", field="size"
        )
    part_store().complete(upload.storage_key, upload.backend_upload_id, [(n, e) for n, e, _ in parts], upload.size)
    WeightsUpload.objects.filter(pk=upload.pk).update(status=WeightsUpload.STATUS_COMPLETE, completed_at=timezone.now())
    upload.refresh_from_db()
    return upload


def _require_upload_owner(upload: WeightsUpload, user: User) -> None:
    if not policy.can_manage(user, upload):
        raise PermissionError("Only the uploader or staff can change this upload.")


def upload_from_file(*, owner: User, file: Any) -> WeightsUpload:
    """A whole archive in one request (the no-JavaScript form, the CLI): the same parts and checks
    as the resumable API, one part at a time from the file."""
    digest = hashlib.sha256()
    for block in file.chunks(1024 * 1024):
        digest.update(block)
    file.seek(0)
    upload = upload_create(
        owner=owner, filename=getattr(file, "name", "weights.tar"), size=file.size, sha256=digest.hexdigest()
    )
    for number in range(1, upload.part_count + 1):
        upload_put_part(upload=upload, user=owner, number=number, data=file.read(upload.part_size))
    return upload_complete(upload=upload, user=owner)
