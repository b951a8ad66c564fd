"""Generating a submission's predictions in a worker: one GenerationJob per submission, one model
load for all its runs.

The worker claims the job (compare-and-set lease, like a run), reaches the model once (an
OpenAI-compatible endpoint as it is, or a model server started in its own process group through
evaluators.llm.server: ``transformers serve`` on a CPU, ``vllm serve`` on GPU workers; never torch
or CUDA inside the Celery process), builds each run's requests with the evaluator's
``build_requests``, sends them with ``ChatClient.chat_many`` (bounded concurrency) and stores each
answer as it arrives (one GeneratedOutput per run, item, sample and stage, so a resumed job never asks
twice). A multi-turn evaluator (one with ``follow_up``) is asked, in tool threads, what follows each
stored stage; its follow-up requests join the same bounded stream of requests, and a resumed job
decides again from the last stored stage. A run whose outputs are complete gets its predictions JSONL
(with every error kind, and the transcript of multi-turn items) written to storage and is queued for
scoring on ``cpu``. The server is stopped at the end, and killed on timeout or cancel.

A bad single answer (empty, cut off, invalid) is a prediction that scores as wrong. A wrong key, an
unreachable endpoint or a model that does not load fails the job and its waiting runs with a
classified reason; a self-hosted server that dies mid-run is restarted once, then the runs fail as
``model_load`` / ``out_of_memory`` with the server's log tail.
"""
from __future__ import annotations

import json
import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import EllipsisType
from typing import Any, Sequence

from django.conf import settings

from evaluators.core import ModelRequest, evaluator_version, get_evaluator
from evaluators.core.files import read_items, storable_text
from evaluators.core.turns import next_request
from evaluators.core.types import FollowUp, Item, Stage
from evaluators.llm.types import ChatResult, Endpoint, ModelError
from leaderboard.catalog.models import DatasetVersion, Model
from leaderboard.catalog.services import dataset_items_path
from leaderboard.modelhost.services import model_endpoint, model_path
from leaderboard.submissions import jobs, leases
from leaderboard.submissions.leases import LeaseLost
from leaderboard.submissions.models import EvaluationRun, FailureKind, GeneratedOutput, GenerationJob

log = logging.getLogger(__name__)

FAILURE_OF = {"model_load": FailureKind.MODEL_LOAD, "out_of_memory": FailureKind.OUT_OF_MEMORY, "timeout": FailureKind.TIMEOUT,
              "endpoint": FailureKind.ENDPOINT_ERROR, "output": FailureKind.ENDPOINT_ERROR}
#: HTTP statuses with which an endpoint refuses one request (a prompt over the context length, a
#: request this model cannot take): that answer is empty and scores as wrong; the job goes on
REQUEST_REFUSED = {400, 413, 422}


class _Fatality:
    """Which failed requests end the job. A model that does not load or runs out of memory, a wrong
    key, a missing model, an endpoint that stays down or a dead server end it; a request the endpoint
    refuses on its own (REQUEST_REFUSED) and a single request that times out are bad answers, until
    more than GENERATION_MAX_TIMEOUTS requests of the job have timed out (then the server is hung)."""

    def __init__(self) -> None:
        self.timeouts = 0

    def __call__(self, error: ModelError) -> bool:
        if error.kind in ("model_load", "out_of_memory"):
            return True
        if error.kind == "endpoint":
            return error.status not in REQUEST_REFUSED
        if error.kind == "timeout":
            self.timeouts += 1
            return self.timeouts > settings.GENERATION_MAX_TIMEOUTS
        return False  # "output": an answer that does not satisfy its constraint
#: answers stored per INSERT (or whatever arrived within a second); a crash re-asks at most these on resume
FLUSH_EVERY = 32
#: seconds between progress UPDATEs while answers arrive
PROGRESS_EVERY_S = 1.0


def _refusal(exc: Exception) -> leases.Refusal | None:
    """A model that fails to load, runs out of memory or answers nothing usable fails the job."""
    if isinstance(exc, ModelError):
        kind = FAILURE_OF[exc.kind]
        return leases.Refusal(kind, str(exc), f"failed: {kind}")
    return None


def _lease_lost(claim: leases.Claim) -> str:
    if jobs.generation_stop_cancelled(claim=claim):
        return "stopped: every run was cancelled (model server stopped)"
    return "stopped: lease lost (taken over)"


def _generate_body(claim: leases.Claim, heartbeat: leases.Heartbeat, worker: str) -> str:
    return f"succeeded: {_generate(claim, heartbeat)} run(s) handed to scoring"


GENERATION_TASK = leases.LeasedTask(
    model=GenerationJob, what="generation job",
    claim=lambda pk, worker: jobs.generation_claim(job_id=pk, worker=worker),
    beat=lambda claim: jobs.generation_heartbeat(claim=claim),
    body=_generate_body, refusal=_refusal,
    fail=lambda claim, kind, message: jobs.generation_fail(claim=claim, job_id=claim.work_id, kind=FailureKind(kind),
                                                               message=message),
    lease_lost=_lease_lost)


def generation_execute(*, job_id: int, worker: str | None = None) -> str:
    """Generate every waiting run of the job's submission. Returns what happened, for the log."""
    return leases.execute_leased(GENERATION_TASK, pk=job_id, worker=worker)


@dataclass(frozen=True)
class _Turns:
    """What a multi-turn run needs to decide follow-ups: the configured evaluator, its items and first
    requests by item id, the generation settings and the most stages an item takes."""

    evaluator: Any
    items: dict[str, Item]
    first: dict[str, ModelRequest]
    settings: dict[str, Any]
    max_stages: int


@dataclass
class _RunPlan:
    """A run's requests still to send, how many it has in all, and its stored answers."""

    run: EvaluationRun
    pending: list[ModelRequest]
    total: int
    samples: dict[str, int] = field(default_factory=dict)  # item id -> n
    #: (item id, sample index) -> its predictions line, for every row of the run known to be stored as it is here
    lines: dict[tuple[str, int], str] = field(default_factory=dict)
    #: an answer of this attempt met one stored by someone else: the predictions are read back
    outputs_stale: bool = False
    #: multi-turn runs only: the stored stages of each (item, sample), and those whose next stage is undecided
    turns: _Turns | None = None
    conversations: dict[tuple[str, int], list[Stage]] = field(default_factory=dict)
    undecided: list[tuple[str, int]] = field(default_factory=list)
    #: (item id, sample index, stage) -> the messages and tool run of a follow-up request in flight
    follow_ups: dict[tuple[str, int, int], FollowUp] = field(default_factory=dict)
    requests: tuple[ModelRequest, ...] = ()

    def remaining(self) -> int:
        """Progress units left: requests, or for a multi-turn run, stages of samples not yet stored."""
        if self.turns is None:
            return len(self.pending)
        return self.total - sum(len(stages) for stages in self.conversations.values())


@dataclass(frozen=True)
class _Prepared:
    requests: tuple[ModelRequest, ...]
    turns: _Turns | None


@lru_cache(maxsize=2)
def _prepared(dataset_version_id: int, content_hash: str, evaluator_key: str, evaluator_version_: str,
              evaluator_settings: str, generation_settings: str) -> _Prepared:
    """Every request of a dataset version, built once per worker process: reading a dataset's items
    (a Multi-LCB sample with its private tests is 126 MB) costs far more than the prompts it yields,
    and a worker generates the same benchmark for model after model. Keyed by the dataset's content
    hash, the evaluator's version and both settings, so nothing stale is ever sent. The items are kept
    only for a multi-turn evaluator, whose follow-ups need them."""
    evaluator = get_evaluator(evaluator_key)
    run_settings = json.loads(evaluator_settings)
    if run_settings and hasattr(evaluator, "configured"):
        evaluator = evaluator.configured(run_settings)
    version = DatasetVersion.objects.get(pk=dataset_version_id)
    items = read_items(dataset_items_path(version, Path(settings.VAR_DIR) / "cache" / "datasets"))
    generation = json.loads(generation_settings)
    requests = tuple(request for item in items for request in evaluator.build_requests(item, generation))
    turns = None
    if hasattr(evaluator, "follow_up"):
        max_stages = int(evaluator.max_stages(generation)) if hasattr(evaluator, "max_stages") else 2
        turns = _Turns(evaluator, {item.id: item for item in items}, {r.item_id: r for r in requests}, generation,
                       max(1, max_stages))
    return _Prepared(requests, turns)


def _plan(run: EvaluationRun, generation_settings: dict[str, Any]) -> _RunPlan:
    """What is left to send for ``run``: one query for the answers an earlier attempt stored."""
    prepared = _prepared(run.dataset_version_id, run.dataset_version.content_hash, run.evaluator_key,
                         evaluator_version(run.evaluator_key), json.dumps(run.evaluator_settings or {}, sort_keys=True),
                         json.dumps(generation_settings, sort_keys=True))
    requests = prepared.requests
    turns = prepared.turns
    samples = {r.item_id: r.n for r in requests}
    total = len(requests) if turns is None else sum(samples.values()) * turns.max_stages
    plan = _RunPlan(run, [], total, samples, turns=turns, requests=requests)
    _outstanding(plan)
    return plan


def _outstanding(plan: _RunPlan) -> None:
    """Read what the run has stored and set what is left: the first-stage requests not answered and,
    for a multi-turn run, the conversations whose next stage is still to decide."""
    rows = GeneratedOutput.objects.filter(run=plan.run)
    plan.follow_ups = {}
    have: dict[str, int] = {}
    if plan.turns is None:
        plan.lines = {(i, s): _line(i, s, o, k, e)
                      for i, s, o, k, e in rows.values_list("item_id", "sample_index", "output", "error_kind", "error")}
        for item_id, _ in plan.lines:
            have[item_id] = have.get(item_id, 0) + 1
    else:
        plan.conversations = {}
        for row in rows.order_by("item_id", "sample_index", "stage").values(*_STAGE_COLUMNS):
            plan.conversations.setdefault((row["item_id"], row["sample_index"]), []).append(_stage(row))
        for item_id, _ in plan.conversations:
            have[item_id] = have.get(item_id, 0) + 1
        plan.undecided = [key for key, stages in plan.conversations.items() if len(stages) < plan.turns.max_stages]
    plan.pending = [r for r in plan.requests if have.get(r.item_id, 0) < r.n]


_STAGE_COLUMNS = ("item_id", "sample_index", "stage", "output", "finish_reason", "error_kind", "error", "messages", "tool")


def _stage(row: dict[str, Any]) -> Stage:
    """A stored (or about to be stored) row as a transcript stage."""
    return Stage(messages=list(row.get("messages") or []), answer=row["output"], tool=dict(row.get("tool") or {}),
                 error_kind=row.get("error_kind", ""), error=row.get("error", ""), finish_reason=row.get("finish_reason", ""))


def _line(item_id: str, sample_index: int, output: str, error_kind: str = "", error: str = "",
          transcript: Sequence[Stage] = ()) -> str:
    """One predictions line: the answer, why it is not a plain one (when so), and a multi-turn item's transcript."""
    line: dict[str, Any] = {"item_id": item_id, "sample_index": sample_index, "output": output}
    if error_kind:
        line["error_kind"], line["error"] = error_kind, error
    if transcript:
        line["transcript"] = [stage.to_dict() for stage in transcript]
    return json.dumps(line) + "\n"


class _Progress:
    """The job's requests done/total, written at most every PROGRESS_EVERY_S while answers arrive
    (and with the job's last UPDATE); a write the lease refuses marks the heartbeat lost."""

    def __init__(self, claim: leases.Claim, heartbeat: leases.Heartbeat, done: int, total: int) -> None:
        self.claim, self.heartbeat, self.done, self.total = claim, heartbeat, done, total
        self.written = 0.0

    def write(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.written >= PROGRESS_EVERY_S:
            self.written = now
            if not jobs.generation_progress(claim=self.claim, done=self.done, total=self.total):
                self.heartbeat.lost.set()


def _generate(claim: leases.Claim, heartbeat: leases.Heartbeat) -> int:
    job = GenerationJob.objects.select_related("submission__model__weights_upload").get(pk=claim.work_id)
    model = job.submission.model
    settings_ = job.submission.generation_settings or {}
    plans = [_plan(run, settings_) for run in jobs.generation_runs_waiting(job=job)]
    if not plans:
        if not jobs.generation_finish(claim=claim, log_line=f"attempt {claim.attempt}: no run waits for outputs; nothing to load"):
            raise LeaseLost()
        return 0
    total = sum(p.total for p in plans)
    progress = _Progress(claim, heartbeat, total - sum(p.remaining() for p in plans), total)
    line = (f"attempt {claim.attempt}: {len(plans)} run(s), {total - progress.done} of {total} request(s) to send "
            f"({model.get_source_display()})")

    def announce() -> None:
        progress.write(force=True)
        jobs.generation_append_log(job_id=job.pk, line=line)

    if model.source != Model.SOURCE_ENDPOINT:  # a model load takes a while: say what comes first
        announce()
    usage = [0, 0]
    handed = 0
    limits = _Limits(deadline=time.monotonic() + settings.GENERATION_TIME_LIMIT, fatal=_Fatality())
    with model_access(model, job_id=job.pk) as access:
        environment = {**access.environment, "generation_settings": job.submission.generation_settings or {}}

        def started() -> None:  # bookkeeping while the first requests are in flight
            if model.source == Model.SOURCE_ENDPOINT:
                announce()
            jobs.generation_set_environment(claim=claim, environment=environment)

        seen = {plan.run.pk for plan in plans}
        on_started: Any = started
        while plans:
            plan = plans.pop(0)
            _send_all(access, plan, claim, heartbeat, progress, usage, limits, on_started)
            on_started = None
            environment["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
            if jobs.generation_hand_to_scoring(run=plan.run, data=_predictions_jsonl(plan),
                                                   count=sum(plan.samples.values()), environment=environment):
                handed += 1
            if not plans:  # a re-run queued while this job ran: same model load
                plans = [_plan(run, settings_) for run in jobs.generation_runs_waiting(job=job) if run.pk not in seen]
                seen |= {plan.run.pk for plan in plans}
                progress.total += sum(p.total for p in plans)
    if not jobs.generation_finish(claim=claim, environment=environment, done=progress.done, total=progress.total,
                                      log_line=f"done: {handed} run(s) handed to scoring; tokens {usage[0]} in, {usage[1]} out"):
        raise LeaseLost()
    return handed


@dataclass
class _Limits:
    """The job's wall-clock deadline (enforced here: a GPU worker's solo pool ignores Celery's time
    limits) and the rule for which failed requests end it."""

    deadline: float
    fatal: _Fatality


def _send_all(access: ModelAccess, plan: _RunPlan, claim: leases.Claim, heartbeat: leases.Heartbeat, progress: _Progress,
              usage: list[int], limits: _Limits, on_started: Any = None) -> None:
    """Send a run's pending requests (and its follow-ups), storing answers from this (the Celery)
    thread as they arrive. A fatal error from a self-hosted server that died restarts it once and sends
    what is left."""
    for restart in range(2):
        fatal = _send_once(access, plan, heartbeat, progress, usage, limits, on_started)
        on_started = None
        if heartbeat.lost.is_set():
            raise LeaseLost()
        if fatal is None:
            return
        progress.write(force=True)
        if restart == 0 and access.restartable and not access.alive():
            jobs.generation_append_log(job_id=claim.work_id, line=f"the model server died ({fatal}); restarting it once")
            access.restart()
            _outstanding(plan)
            continue
        raise access.explain(fatal)
    raise AssertionError("unreachable")


class _Feed:
    """The requests of one pass, drawn lazily by ``chat_many``: the plan's pending ones, then follow-ups
    as tool threads decide them. Every request, and every undecided conversation, is open until the
    answer has been stored (``close``) or the decision made; iterating ends once nothing is open, or
    when ``stop`` is set."""

    def __init__(self, requests: Sequence[ModelRequest], stop: threading.Event) -> None:
        self._queue: queue.Queue[ModelRequest | None] = queue.Queue()
        self._lock = threading.Lock()
        self._open = 0
        self._stop = stop
        for request in requests:
            self.send(request)

    def send(self, request: ModelRequest) -> None:
        with self._lock:
            self._open += 1
        self._queue.put(request)

    def hold(self) -> None:
        with self._lock:
            self._open += 1

    def close(self) -> None:
        with self._lock:
            self._open -= 1
            if self._open == 0:
                self._queue.put(None)  # wake the iterator: nothing more will come

    def __iter__(self) -> Any:
        while not self._stop.is_set():
            try:
                request = self._queue.get(timeout=0.2)
            except queue.Empty:
                request = None
            if request is not None:
                yield request
                continue
            with self._lock:
                if self._open == 0:
                    return


def _send_once(access: ModelAccess, plan: _RunPlan, heartbeat: leases.Heartbeat, progress: _Progress, usage: list[int],
               limits: _Limits, on_started: Any = None) -> ModelError | None:
    """One pass of chat_many over the plan's pending requests (and the follow-ups decided meanwhile),
    in a sender thread; this thread calls ``on_started`` once the first requests are out, then stores
    the answers in batches and hands each stored stage of a multi-turn item to a tool thread that
    decides what follows."""
    results: queue.Queue[tuple[str, Any] | None] = queue.Queue()
    stop = threading.Event()
    fatal: list[ModelError] = []
    feed = _Feed(plan.pending, stop)
    turns = plan.turns
    tools = ThreadPoolExecutor(max_workers=max(1, settings.GENERATION_TOOL_CONCURRENCY), thread_name_prefix="tool") \
        if turns is not None else None
    broken: list[BaseException] = []

    def on_result(request: ModelRequest, outcome: ChatResult | ModelError) -> None:
        results.put(("answer", (request, outcome)))

    def send() -> None:
        try:
            access.client.chat_many(feed, on_result=on_result, cancel=stop)
        finally:
            results.put(None)

    def decide(key: tuple[str, int], transcript: tuple[Stage, ...]) -> None:
        """In a tool thread: ask the evaluator what follows ``transcript``, and send it or end the item."""
        assert turns is not None
        try:
            if stop.is_set():
                return
            follow = None if len(transcript) >= turns.max_stages else \
                turns.evaluator.follow_up(turns.items[key[0]], transcript, key[1], turns.settings)
            if follow is None:
                results.put(("finished", turns.max_stages - len(transcript)))
            else:
                plan.follow_ups[(key[0], key[1], len(transcript))] = follow
                feed.send(next_request(turns.first[key[0]], transcript, follow, key[1]))
        except BaseException as exc:  # an evaluator's bug or a sandbox that cannot start: the job's failure
            results.put(("broken", exc))
        finally:
            feed.close()

    def decide_later(key: tuple[str, int]) -> None:
        assert tools is not None
        feed.hold()
        tools.submit(decide, key, tuple(plan.conversations.get(key, ())))

    sender = threading.Thread(target=send, name=f"generate-run-{plan.run.pk}", daemon=True)
    batch: list[dict] = []
    answered: list[ModelRequest] = []
    last_flush = time.monotonic()

    def flush() -> None:
        nonlocal batch, answered, last_flush
        stored = jobs.generation_record_outputs(run_id=plan.run.pk, outputs=batch)
        for output in batch:
            key = (output["item_id"], output["sample_index"])
            mine = (*key, output.get("stage", 0)) in stored
            if turns is None:
                if mine:
                    plan.lines[key] = _line(*key, output["output"], output.get("error_kind", ""), output.get("error", ""))
                else:
                    plan.outputs_stale = True
                continue
            if mine:
                plan.conversations.setdefault(key, []).append(_stage(output))
            else:  # someone else stored this stage: continue from what is stored
                plan.conversations[key] = [_stage(row) for row in GeneratedOutput.objects.filter(
                    run=plan.run, item_id=key[0], sample_index=key[1]).order_by("stage").values(*_STAGE_COLUMNS)]
            decide_later(key)
        batch, last_flush = [], time.monotonic()
        for _ in answered:
            feed.close()
        answered = []

    for key in plan.undecided:  # a resumed job: what follows the last stored stage is decided again
        decide_later(key)
    plan.undecided = []
    sender.start()
    try:
        if on_started is not None:
            on_started()
        while True:
            entry: tuple[str, Any] | None | EllipsisType
            try:
                entry = results.get(timeout=1.0)
            except queue.Empty:
                entry = ...  # nothing yet: check the limits and the heartbeat, then wait again
            if heartbeat.lost.is_set():
                stop.set()
            if time.monotonic() > limits.deadline and not fatal:
                fatal.append(ModelError("timeout", f"generation exceeded its time limit of {settings.GENERATION_TIME_LIMIT:g} s "
                                                   f"({progress.done} of {progress.total} requests answered); the model server was stopped"))
                stop.set()
            if entry is None:
                break
            if entry is not ...:
                kind, value = entry
                if kind == "broken":
                    broken.append(value)
                    stop.set()
                elif kind == "finished":
                    progress.done += value
                else:
                    request, outcome = value
                    if isinstance(outcome, ModelError) and limits.fatal(outcome):
                        if not fatal:
                            fatal.append(outcome)
                        stop.set()
                        feed.close()
                    else:
                        batch.extend(_outputs(request, outcome, usage, plan))
                        answered.append(request)
                        progress.done += 1 if turns is None else request.n
            # a multi-turn run stores at once (its next stage waits for it); others in batches
            if batch and (len(batch) >= FLUSH_EVERY or time.monotonic() - last_flush > 1.0
                          or (turns is not None and results.empty())):
                flush()
                progress.write()
    finally:
        stop.set()
        sender.join()
        if tools is not None:
            tools.shutdown(wait=True, cancel_futures=True)
        if batch:
            flush()
    if broken:
        raise broken[0]
    return fatal[0] if fatal else None


def _error_kind(error: ModelError) -> str:
    if error.kind == "endpoint" and error.status in REQUEST_REFUSED:
        return "refused"
    return {"timeout": "timeout", "output": "invalid"}.get(error.kind, "failed")


def _outputs(request: ModelRequest, outcome: ChatResult | ModelError, usage: list[int], plan: _RunPlan | None = None) -> list[dict]:
    """The rows for one request's answer: one per sample; a bad answer is an empty output with its reason.
    A multi-turn run's rows also hold what their stage added to the conversation and the tool run."""
    common: dict[str, Any] = {"item_id": request.item_id, "stage": request.stage}
    if plan is not None and plan.turns is not None:
        follow = plan.follow_ups.pop((request.item_id, request.sample_index, request.stage), None)
        common["messages"] = request.messages if request.stage == 0 or follow is None else follow.messages
        common["tool"] = {} if follow is None else follow.tool
    if isinstance(outcome, ModelError):
        return [{**common, "sample_index": request.sample_index + i, "output": "", "error_kind": _error_kind(outcome),
                 "error": f"{outcome.kind}: {outcome}"[:2000]} for i in range(request.n)]
    usage[0] += outcome.usage.prompt_tokens
    usage[1] += outcome.usage.completion_tokens
    cut = outcome.finish_reason not in ("stop", "")
    texts = [storable_text(t) for t in outcome.texts] + [""] * max(0, request.n - len(outcome.texts))
    rows = []
    for i, text in enumerate(texts[:request.n]):
        kind = "cut_off" if cut else ("" if text else "empty")
        error = f"cut off (finish_reason {outcome.finish_reason})" if cut else ("" if text else "empty answer")
        rows.append({**common, "sample_index": request.sample_index + i, "output": text, "finish_reason": outcome.finish_reason,
                     "prompt_tokens": outcome.usage.prompt_tokens if i == 0 else 0,
                     "completion_tokens": outcome.usage.completion_tokens if i == 0 else 0, "latency_s": outcome.latency_s,
                     "error_kind": kind, "error": error})
    return rows


def _predictions_jsonl(plan: _RunPlan) -> bytes:
    """The run's predictions file, one line per (item, sample) in that order: the lines made as this
    job stored or found the answers, read back only if some answer met one stored by someone else. A
    multi-turn run's lines carry their transcripts, read back from the stored stages."""
    if plan.turns is not None:
        conversations: dict[tuple[str, int], list[Stage]] = {}
        for row in GeneratedOutput.objects.filter(run=plan.run).order_by("item_id", "sample_index", "stage").values(*_STAGE_COLUMNS):
            conversations.setdefault((row["item_id"], row["sample_index"]), []).append(_stage(row))
        return "".join(_line(*key, stages[-1].answer, stages[-1].error_kind, stages[-1].error, stages)
                       for key, stages in conversations.items()).encode()
    if plan.outputs_stale or len(plan.lines) != sum(plan.samples.values()):
        rows = GeneratedOutput.objects.filter(run=plan.run).order_by("item_id", "sample_index").values_list(
            "item_id", "sample_index", "output", "error_kind", "error")
        return "".join(_line(*row) for row in rows).encode()
    return "".join(plan.lines[key] for key in sorted(plan.lines)).encode()


# --- reaching the model ----------------------------------------------------------------------

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

    return ChatClient(endpoint, max_concurrency=max(1, settings.GENERATION_CONCURRENCY), timeout_s=settings.GENERATION_REQUEST_TIMEOUT)


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
        return ModelError("model_load", f"the model server exited mid-run ({error}). Last lines of its log:\n{self.server.log_tail()}")

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.server.stop()


def _server_facts(spec: Any) -> dict[str, Any]:
    """Server kind and version (read from package metadata: nothing imports torch here)."""
    from evaluators.llm.server import server_version

    return {"server": spec.kind, "server_version": server_version(spec), "dtype": spec.dtype, "seed": spec.seed,
            "max_model_len": spec.max_model_len}


class model_access:  # noqa: N801 - used as a context manager
    """Context manager: reach ``model`` (endpoint, uploaded weights or an HF repo), yield a
    ModelAccess, and stop any server it started, whatever happens."""

    def __init__(self, model: Model, *, job_id: int) -> None:
        self.model = model
        self.job_id = job_id
        self.access: ModelAccess | None = None

    def __enter__(self) -> ModelAccess:
        model = self.model
        if model.source == Model.SOURCE_ENDPOINT:
            endpoint = model_endpoint(model)
            self.access = ModelAccess(endpoint, {"server": "endpoint", **endpoint.redacted()})
            return self.access
        self.access = ServedModelAccess(server_spec(model), _model_facts(model))
        return self.access

    def __exit__(self, *exc: object) -> None:
        if self.access is not None:
            self.access.close()


def _model_facts(model: Model) -> dict[str, Any]:
    if model.source == Model.SOURCE_WEIGHTS:
        return {"model_sha256": model.weights_upload.sha256 if model.weights_upload else ""}
    return {"hf_repo": model.hf_repo, "hf_revision": model.hf_revision}


def server_spec(model: Model) -> Any:
    from evaluators.llm.server import ServerSpec

    logs = Path(settings.VAR_DIR) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    return ServerSpec(kind=settings.MODEL_SERVER, model=model_path(model), revision=model.hf_revision or None,
                      start_timeout_s=settings.MODEL_SERVER_START_TIMEOUT, log_path=str(logs / f"model-server-{model.slug}.log"),
                      python=settings.VLLM_PYTHON or None, cpu_kv_cache_bytes=settings.VLLM_CPU_KV_CACHE_BYTES,
                      env={"VLLM_CACHE_ROOT": str(Path(settings.VAR_DIR) / "cache" / "vllm")})
