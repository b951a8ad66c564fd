"""One pass of a generation job's requests through the model (``leaderboard.runs.generation.worker`` runs
the job): the feed of requests ``chat_many`` draws from (a run's pending requests, then the follow-ups of
multi-turn items as tool threads decide them), the sender thread, the answers stored in batches as they
arrive, and the job's limits: its deadline, and which failed requests end it (``Fatality``); a bad
single answer is stored as an empty output with its reason (``_outputs``)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import EllipsisType
from typing import Any

from django.conf import settings

from evaluators.core import ModelRequest
from evaluators.core.files import storable_text
from evaluators.core.turns import next_request
from evaluators.core.types import Stage
from evaluators.llm.types import ChatResult, ModelError
from leaderboard.modelhost.access import ModelAccess
from leaderboard.runs import leases
from leaderboard.runs.generation import jobs
from leaderboard.runs.generation.plans import STAGE_COLUMNS, RunPlan, predictions_line, stage_of_row
from leaderboard.runs.models import GeneratedOutput

#: HTTP statuses with which an endpoint refuses one request (a prompt over the context length, a
#: request this model cannot take): that answer is empty and scores as wrong; the job goes on
REQUEST_REFUSED = {400, 413, 422}


class Fatality:
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


class Progress:
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


@dataclass
class Limits:
    """The job's wall-clock deadline (enforced here: a GPU worker's solo pool ignores Celery's time
    limits) and the rule for which failed requests end it."""

    deadline: float
    fatal: Fatality


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

    def only_answered_open(self, answered: int) -> bool:
        """Whether every open request is among the ``answered`` ones still to be stored: nothing more
        comes until they are (so the last answers of a pass are stored at once, not after a wait)."""
        with self._lock:
            return self._open <= answered

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


def send_once(
    access: ModelAccess,
    plan: RunPlan,
    heartbeat: leases.Heartbeat,
    progress: Progress,
    usage: list[int],
    limits: Limits,
    on_started: Any = None,
) -> ModelError | None:
    """One pass of chat_many over the plan's pending requests (and the follow-ups decided meanwhile): the
    fatal error that ended it, or None (``_Pass``)."""
    return _Pass(access, plan, heartbeat, progress, usage, limits).run(on_started)


class _Pass:
    """One pass of chat_many over a plan's pending requests (and the follow-ups decided meanwhile), in a
    sender thread; the calling thread calls ``on_started`` once the first requests are out, then stores
    the answers in batches and hands each stored stage of a multi-turn item to a tool thread that
    decides what follows. Threads report through ``results``: ("answer", (request, outcome)),
    ("finished", stages left unasked), ("broken", exception), and None once the sender is done."""

    def __init__(
        self,
        access: ModelAccess,
        plan: RunPlan,
        heartbeat: leases.Heartbeat,
        progress: Progress,
        usage: list[int],
        limits: Limits,
    ) -> None:
        self.access, self.plan, self.heartbeat = access, plan, heartbeat
        self.progress, self.usage, self.limits = progress, usage, limits
        self.results: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self.stop = threading.Event()
        self.fatal: list[ModelError] = []
        self.broken: list[BaseException] = []
        self.feed = _Feed(plan.pending, self.stop)
        self.turns = plan.turns
        self.tools = (
            None
            if self.turns is None
            else ThreadPoolExecutor(max_workers=max(1, settings.GENERATION_TOOL_CONCURRENCY), thread_name_prefix="tool")
        )
        self.batch: list[dict] = []
        self.answered: list[ModelRequest] = []
        self.last_flush = time.monotonic()

    def run(self, on_started: Any = None) -> ModelError | None:
        """Send, store and decide until the sender is done; the fatal error that ended the pass, or None.
        An evaluator's exception in a tool thread is raised here."""
        sender = threading.Thread(target=self._send, name=f"generate-run-{self.plan.run.pk}", daemon=True)
        for key in self.plan.undecided:  # a resumed job: what follows the last stored stage is decided again
            self._decide_later(key)
        self.plan.undecided = []
        sender.start()
        try:
            if on_started is not None:
                on_started()
            self._receive()
        finally:
            self.stop.set()
            sender.join()
            if self.tools is not None:
                self.tools.shutdown(wait=True, cancel_futures=True)
            if self.batch:
                self._flush()
        if self.broken:
            raise self.broken[0]
        return self.fatal[0] if self.fatal else None

    # ----------------------------------------------------------------------------- the sender thread
    def _send(self) -> None:
        try:
            self.access.client.chat_many(self.feed, on_result=self._on_result, cancel=self.stop, media=self.plan.media)
        finally:
            self.results.put(None)

    def _on_result(self, request: ModelRequest, outcome: ChatResult | ModelError) -> None:
        self.results.put(("answer", (request, outcome)))

    # ----------------------------------------------------------------------------- tool threads
    def _decide(self, key: tuple[str, int], transcript: tuple[Stage, ...]) -> None:
        """In a tool thread: ask the evaluator what follows ``transcript``, and send it or end the item."""
        turns = self.turns
        assert turns is not None
        try:
            if self.stop.is_set():
                return
            follow = (
                None
                if len(transcript) >= turns.max_stages
                else turns.conversation.follow_up(turns.items[key[0]], transcript, key[1], turns.settings)
            )
            if follow is None:
                self.results.put(("finished", turns.max_stages - len(transcript)))
            else:
                self.plan.follow_ups[(key[0], key[1], len(transcript))] = follow
                self.feed.send(next_request(turns.first[key[0]], transcript, follow, key[1]))
        except BaseException as exc:  # noqa: BLE001 - an evaluator's bug or a sandbox that cannot start: the job's failure
            self.results.put(("broken", exc))
        finally:
            self.feed.close()

    def _decide_later(self, key: tuple[str, int]) -> None:
        assert self.tools is not None
        self.feed.hold()
        self.tools.submit(self._decide, key, tuple(self.plan.conversations.get(key, ())))

    # ----------------------------------------------------------------------------- this thread
    def _receive(self) -> None:
        """Take what the threads report until the sender is done, checking the limits and the heartbeat
        at least every second, and store the answers in batches."""
        while True:
            entry: tuple[str, Any] | EllipsisType | None
            try:
                entry = self.results.get(timeout=1.0)
            except queue.Empty:
                entry = ...  # nothing yet: check the limits and the heartbeat, then wait again
            self._check_limits()
            if entry is None:
                break
            if entry is not ...:
                self._take(*entry)
            if self._flush_due():
                self._flush()
                self.progress.write()

    def _check_limits(self) -> None:
        """Stop on a lost heartbeat; past the deadline, stop with a timeout as the pass's fatal error."""
        if self.heartbeat.lost.is_set():
            self.stop.set()
        if time.monotonic() > self.limits.deadline and not self.fatal:
            done, total = self.progress.done, self.progress.total
            message = (
                f"generation exceeded its time limit of {settings.GENERATION_TIME_LIMIT:g} s ({done} of {total} "
                "requests answered); the model server was stopped"
            )
            self.fatal.append(ModelError("timeout", message))
            self.stop.set()

    def _take(self, kind: str, value: Any) -> None:
        """One report of a thread: a tool's failure, an item finished early, or a request's outcome."""
        if kind == "broken":
            self.broken.append(value)
            self.stop.set()
        elif kind == "finished":
            self.progress.done += value
        else:
            request, outcome = value
            if isinstance(outcome, ModelError) and self.limits.fatal(outcome):
                if not self.fatal:
                    self.fatal.append(outcome)
                self.stop.set()
                self.feed.close()
            else:
                self.batch.extend(_outputs(request, outcome, self.usage, self.plan))
                self.answered.append(request)
                self.progress.done += 1 if self.turns is None else request.n

    def _flush_due(self) -> bool:
        """A multi-turn run stores at once (its next stage waits for it); others in batches."""
        return bool(self.batch) and (
            len(self.batch) >= FLUSH_EVERY
            or time.monotonic() - self.last_flush > 1.0
            or (self.turns is not None and self.results.empty())
            or self.feed.only_answered_open(len(self.answered))
        )

    def _flush(self) -> None:
        """Store the batch; keep each stored row's predictions line or stage, and for a multi-turn run hand
        the stage to a tool thread; then close the answered requests."""
        plan = self.plan
        stored = jobs.generation_record_outputs(run_id=plan.run.pk, outputs=self.batch)
        for output in self.batch:
            key = (output["item_id"], output["sample_index"])
            mine = (*key, output.get("stage", 0)) in stored
            if self.turns is None:
                if mine:
                    plan.lines[key] = predictions_line(
                        *key, output["output"], output.get("error_kind", ""), output.get("error", "")
                    )
                else:
                    plan.outputs_stale = True
                continue
            if mine:
                plan.conversations.setdefault(key, []).append(stage_of_row(output))
            else:  # someone else stored this stage: continue from what is stored
                plan.conversations[key] = [
                    stage_of_row(row)
                    for row in GeneratedOutput.objects.filter(run=plan.run, item_id=key[0], sample_index=key[1])
                    .order_by("stage")
                    .values(*STAGE_COLUMNS)
                ]
            self._decide_later(key)
        self.batch, self.last_flush = [], time.monotonic()
        for _ in self.answered:
            self.feed.close()
        self.answered = []


def _error_kind(error: ModelError) -> str:
    if error.over_limit:  # too long for this model: its cell says so, it is no wrong answer
        return "over_limit"
    if error.kind == "endpoint" and error.status in REQUEST_REFUSED:
        return "refused"
    return {"timeout": "timeout", "output": "invalid"}.get(error.kind, "failed")


def _outputs(
    request: ModelRequest, outcome: ChatResult | ModelError, usage: list[int], plan: RunPlan | None = None
) -> list[dict]:
    """The rows for one request's answer: one per sample; a bad answer is an empty output with its reason.
    A multi-turn run's rows also hold what their stage added to the conversation and the tool run."""
    common: dict[str, Any] = {"item_id": request.item_id, "stage": request.stage}
    if plan is not None and plan.turns is not None:
        follow = plan.follow_ups.pop((request.item_id, request.sample_index, request.stage), None)
        common["messages"] = request.messages if request.stage == 0 or follow is None else follow.messages
        common["tool"] = {} if follow is None else follow.tool
    if isinstance(outcome, ModelError):
        return [
            {
                **common,
                "sample_index": request.sample_index + i,
                "output": "",
                "error_kind": _error_kind(outcome),
                "error": f"{outcome.kind}: {outcome}"[:2000],
            }
            for i in range(request.n)
        ]
    usage[0] += outcome.usage.prompt_tokens
    usage[1] += outcome.usage.completion_tokens
    cut = outcome.finish_reason not in ("stop", "")
    texts = [storable_text(t) for t in outcome.texts] + [""] * max(0, request.n - len(outcome.texts))
    rows = []
    for i, text in enumerate(texts[: request.n]):
        kind = "cut_off" if cut else ("" if text else "empty")
        error = f"cut off (finish_reason {outcome.finish_reason})" if cut else ("" if text else "empty answer")
        rows.append(
            {
                **common,
                "sample_index": request.sample_index + i,
                "output": text,
                "finish_reason": outcome.finish_reason,
                "prompt_tokens": outcome.usage.prompt_tokens if i == 0 else 0,
                "completion_tokens": outcome.usage.completion_tokens if i == 0 else 0,
                "latency_s": outcome.latency_s,
                "error_kind": kind,
                "error": error,
            }
        )
    return rows
