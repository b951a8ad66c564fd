"""``python manage.py upload_weights DIR --model NAME --owner USER``: archive a model directory as
tar, upload it in parts through the same services as the API (resumable: an interrupted upload of
the same archive continues from the parts already received), and register the model."""

from __future__ import annotations

import hashlib
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.modelhost import services
from leaderboard.modelhost.models import WeightsUpload


class Command(BaseCommand):
    help = "Upload a model directory as a tar archive (in parts) and register it as a model."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)
        parser.add_argument("--model", required=True, help="Name of the model to register.")
        parser.add_argument("--owner", required=True, help="Username of the model's owner.")
        parser.add_argument("--private", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        directory: Path = options["directory"]
        if not (directory / "config.json").is_file():
            raise CommandError(f"{directory}: not a model directory (no config.json)")
        owner = get_user_model().objects.filter(username=options["owner"]).first()
        if owner is None:
            raise CommandError(f"--owner: no user {options['owner']!r}")
        with tempfile.TemporaryDirectory() as tmp:
            archive = Path(tmp) / f"{directory.name}.tar"
            with tarfile.open(archive, "w") as tar:
                for path in sorted(directory.rglob("*")):
                    if path.is_file() and not path.is_symlink():
                        tar.add(path, arcname=str(path.relative_to(directory)), recursive=False)
            size = archive.stat().st_size
            digest = hashlib.sha256(archive.read_bytes()).hexdigest()
            upload = WeightsUpload.objects.filter(
                owner=owner, sha256=digest, size=size, status=WeightsUpload.STATUS_OPEN
            ).first() or services.upload_create(owner=owner, filename=archive.name, size=size, sha256=digest)
            have = set(upload.parts.values_list("number", flat=True))
            with archive.open("rb") as handle:
                for number in range(1, upload.part_count + 1):
                    handle.seek((number - 1) * upload.part_size)
                    data = handle.read(upload.part_size)
                    if number not in have:
                        services.upload_put_part(upload=upload, user=owner, number=number, data=data)
                        self.stdout.write(f"part {number}/{upload.part_count} sent")
            services.upload_complete(upload=upload, user=owner)
        try:
            model = services.model_register(
                owner=owner,
                name=options["model"],
                is_public=not options["private"],
                spec=services.ModelSource(source="weights", weights_upload_id=upload.pk),
            )
        except services.ModelRefused as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"uploaded {size} bytes (sha256 {digest[:12]}) as upload #{upload.pk}; "
                f"registered model {model.slug}; pre-flight queued"
            )
        )
