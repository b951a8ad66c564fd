"""Reaching the model a generation job asks: an OpenAI-compatible endpoint as it is, or a model server
this worker starts from local weights in its own process group (``transformers serve`` on a CPU,
``vllm serve`` on GPU workers; never torch or CUDA inside the Celery process), restarted once when it
dies and always stopped at the end. Used by leaderboard.runs.generation.worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from evaluators.core.types import ServerOptions
from evaluators.llm.types import Endpoint, ModelError
from leaderboard.catalog.models import Model
from leaderboard.modelhost.services import model_endpoint, model_path


class ModelAccess:
    """A chat client for the model, plus (for self-hosted weights) the server behind it."""

    restartable = False

    def __init__(self, endpoint: Endpoint, environment: dict[str, Any]) -> None:
        self.environment = environment
        self.client = _client(endpoint)

    def alive(self) -> bool:
        return True

    def restart(self) -> None:
        raise NotImplementedError

    def explain(self, error: ModelError) -> ModelError:
        return error

    def close(self) -> None:
        self.client.close()


def _client(endpoint: Endpoint) -> Any:
    from evaluators.llm.client import ChatClient

    return ChatClient(
        endpoint, max_concurrency=max(1, settings.GENERATION_CONCURRENCY), timeout_s=settings.GENERATION_REQUEST_TIMEOUT
    )


class ServedModelAccess(ModelAccess):
    """A model server this worker started from local weights, in its own process group."""

    restartable = True

    def __init__(self, spec: Any, environment: dict[str, Any]) -> None:
        self.spec = spec
        self.server = self._start()
        try:
            super().__init__(self.server.endpoint(), {**environment, **_server_facts(spec)})
        except BaseException:
            self.server.stop()
            raise

    def _start(self) -> Any:
        from evaluators.llm.server import ModelServer

        server = ModelServer(self.spec)
        try:
            server.start()
            server.wait_ready(timeout_s=settings.MODEL_SERVER_START_TIMEOUT)
        except BaseException:
            server.stop()
            raise
        return server

    def alive(self) -> bool:
        return self.server.running

    def restart(self) -> None:
        self.client.close()
        self.server.stop()
        self.server = self._start()
        self.client = _client(self.server.endpoint())

    def explain(self, error: ModelError) -> ModelError:
        """A request error while the server is dead: the server's own classification and log tail."""
        if self.server.running:
            return error
        failure = self.server.failure()
        if failure is not None:
            return failure
        return ModelError(
            "model_load", f"the model server exited mid-run ({error}). Last lines of its log:\n{self.server.log_tail()}"
        )

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.server.stop()


def _server_facts(spec: Any) -> dict[str, Any]:
    """Server kind and version (read from package metadata: nothing imports torch here)."""
    from evaluators.llm.server_command import server_version

    return {
        "server": spec.kind,
        "server_version": server_version(spec),
        "dtype": spec.dtype,
        "seed": spec.seed,
        "max_model_len": spec.max_model_len,
    }


class model_access:  # lower case: used as a context manager, like a function
    """Context manager: reach ``model`` (endpoint, uploaded weights or an HF repo), yield a
    ModelAccess, and stop any server it started, whatever happens. A server it starts allows what
    ``options`` asks (the benchmarks' images per prompt, context length), recorded in its environment."""

    def __init__(self, model: Model, *, job_id: int, options: ServerOptions | None = None) -> None:
        self.model = model
        self.job_id = job_id
        self.options = options or ServerOptions()
        self.access: ModelAccess | None = None

    def __enter__(self) -> ModelAccess:
        model = self.model
        if model.source == Model.SOURCE_ENDPOINT:
            endpoint = model_endpoint(model)
            self.access = ModelAccess(endpoint, {"server": "endpoint", **endpoint.redacted()})
            return self.access
        from evaluators.llm.server_command import with_options

        self.access = ServedModelAccess(
            with_options(server_spec(model), self.options),
            {**_model_facts(model), "server_options": self.options.to_dict()},
        )
        return self.access

    def __exit__(self, *exc: object) -> None:
        if self.access is not None:
            self.access.close()


def _model_facts(model: Model) -> dict[str, Any]:
    if model.source == Model.SOURCE_WEIGHTS:
        return {"model_sha256": model.weights_upload.sha256 if model.weights_upload else ""}
    return {"hf_repo": model.hf_repo, "hf_revision": model.hf_revision}


def server_spec(model: Model) -> Any:
    from evaluators.llm.server_command import ServerSpec

    logs = Path(settings.VAR_DIR) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    return ServerSpec(
        kind=settings.MODEL_SERVER,
        model=model_path(model),
        revision=model.hf_revision or None,
        start_timeout_s=settings.MODEL_SERVER_START_TIMEOUT,
        log_path=str(logs / f"model-server-{model.slug}.log"),
        python=settings.VLLM_PYTHON or None,
        cpu_kv_cache_bytes=settings.VLLM_CPU_KV_CACHE_BYTES,
        env={"VLLM_CACHE_ROOT": str(Path(settings.VAR_DIR) / "cache" / "vllm")},
    )
