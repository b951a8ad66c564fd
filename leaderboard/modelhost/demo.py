"""The embedded demo model: a tiny Llama with random weights made here, uploaded and registered like any
weights (``services.upload_from_file``, ``services.model_register``) under the demo's own account, with
generation defaults short enough for a CPU. ``chains.demo`` submits it once its pre-flight passed."""

from __future__ import annotations

from leaderboard import pagecache
from leaderboard.accounts.site_accounts import DEMO_OWNER
from leaderboard.catalog.models import Model
from leaderboard.modelhost.services import ModelSource, model_register, upload_from_file

DEMO_MODEL = "tiny-llama (random weights, CPU)"


#: the demo's answers are noise: one short sample per problem keeps a whole Multi-LCB run to about a
#: minute on a CPU (the benchmark's own defaults, 10 samples of up to 32k tokens, would take hours)
DEMO_GENERATION = {"n": 1, "max_tokens": 48}


def demo_model_ensure() -> Model | None:
    """The embedded default's demo: a tiny Llama with random weights made here (evaluators.llm.tiny),
    uploaded like any weights and registered public, so anyone can submit it and watch the whole
    path (pre-flight, generation by `transformers serve`, scoring). Its answers are noise."""
    import tarfile
    import tempfile
    from pathlib import Path

    from django.contrib.auth import get_user_model
    from django.core.files import File

    from evaluators.llm.tiny import create_tiny_model

    existing = Model.objects.filter(name=DEMO_MODEL).first()
    if existing is not None:
        if not existing.generation_defaults:
            existing.generation_defaults = DEMO_GENERATION
            existing.save(update_fields=["generation_defaults"])
            pagecache.boards_changed()
        return existing
    owner, created = get_user_model().objects.get_or_create(username=DEMO_OWNER, defaults={"is_active": False})
    if created:
        owner.set_unusable_password()
        owner.save(update_fields=["password"])
    with tempfile.TemporaryDirectory() as tmp:
        directory = create_tiny_model(Path(tmp) / "tiny-llama")
        archive = Path(tmp) / "tiny-llama.tar"
        with tarfile.open(archive, "w") as tar:
            tar.add(directory, arcname="tiny-llama")
        with archive.open("rb") as handle:
            upload = upload_from_file(owner=owner, file=File(handle, name=archive.name))
    demo = model_register(
        owner=owner,
        name=DEMO_MODEL,
        organization="demo (random weights: scores are near zero)",
        spec=ModelSource(source=Model.SOURCE_WEIGHTS, weights_upload_id=upload.pk),
    )
    demo.generation_defaults = DEMO_GENERATION
    demo.save(update_fields=["generation_defaults"])
    pagecache.boards_changed()
    return demo
