"""Weight uploads: a tar archive of a model directory sent in numbered parts (S3 multipart upload
underneath when S3 is configured, a local file otherwise). Rules live in uploads.py and services.py."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class WeightsUpload(models.Model):
    STATUS_OPEN = "open"
    STATUS_COMPLETE = "complete"
    STATUS_CHOICES = [(STATUS_OPEN, "Receiving parts"), (STATUS_COMPLETE, "Complete")]
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="weights_uploads")
    filename = models.CharField(max_length=200)
    size = models.BigIntegerField(help_text="Declared size of the whole archive in bytes.")
    sha256 = models.CharField(max_length=64, help_text="Declared sha256 of the whole archive; the worker verifies it.")
    part_size = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=STATUS_CHOICES, default=STATUS_OPEN)
    storage_key = models.CharField(
        max_length=300, help_text="The archive's key in S3, or its path under the media root."
    )
    backend_upload_id = models.CharField(max_length=300, blank=True, help_text="S3's multipart upload id.")
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"upload #{self.pk} {self.filename}"

    @property
    def part_count(self) -> int:
        return max(1, -(-self.size // self.part_size))

    def expected_part_size(self, number: int) -> int:
        """Parts are numbered from 1; every part is ``part_size`` bytes except the last."""
        if number < self.part_count:
            return self.part_size
        return self.size - self.part_size * (self.part_count - 1)


class UploadPart(models.Model):
    upload = models.ForeignKey(WeightsUpload, on_delete=models.CASCADE, related_name="parts")
    number = models.PositiveIntegerField()
    size = models.BigIntegerField()
    etag = models.CharField(max_length=200, blank=True)
    sha256 = models.CharField(max_length=64)
    received_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["upload", "number"]
        constraints = [models.UniqueConstraint(fields=["upload", "number"], name="one_row_per_part")]
