"""The worker's event loop side: pulls messages, runs each in a task and settles it (see
`settling.py`), watches runs end, sends in-progress acks, and shuts down gracefully.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import structlog
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from bench_common.envelope import STREAM_EVENTS, STREAM_WORK, Event, any_run_subject
from bench_common.events import RunCancelRequested, RunFinished
from bench_runner.worker.adapters.jetstream import PLANNER_CONSUMER, WORK_CONSUMER
from bench_runner.worker.adapters.pull_feeder import PullFeeder
from bench_runner.worker.inflight import InFlight
from bench_runner.worker.opening import OpenRun, RunOver
from bench_runner.worker.pull_credits import PullCredits
from bench_runner.worker.sessions import SessionCache
from bench_runner.worker.settling import Route, Settle, answer, decode, quietly

E = TypeVar("E", bound=Event)
log = structlog.get_logger("bench_runner.worker")

TICK_S = 1.0
SESSION_IDLE_S = 900.0
CLOSE_WAIT_S = 10.0
PLANNING_CAPACITY = 4
PULL_CHUNK = 16
PULL_MAX_OPEN = 2
PULL_EXPIRES_S = 5.0
"""Short, so a stopping or dead runner leaves no waiting pull request behind for long."""


class Worker:
    """Runs the runner's consumers on one NATS connection."""

    def __init__(
        self,
        *,
        nc: NatsClient,
        runs: SessionCache,
        max_in_flight: int,
        in_progress_interval_s: float,
        shutdown_grace_s: float,
        pull_expires_s: float = PULL_EXPIRES_S,
    ) -> None:
        self._nc = nc
        self._runs = runs
        self._max_in_flight = max_in_flight
        self._progress_s = in_progress_interval_s
        # Tick often enough that an in-progress ack is never later than half its interval.
        self._tick_s = min(TICK_S, in_progress_interval_s / 2)
        self._grace_s = shutdown_grace_s
        self._pull_expires_s = pull_expires_s
        self._inflight = InFlight()
        self._feeders: list[PullFeeder] = []
        self._watchers: list[Subscription] = []
        self._background: set[asyncio.Task[None]] = set()
        self._ticker: asyncio.Task[None] | None = None

    @property
    def in_flight(self) -> int:
        """Messages being handled now."""
        return len(self._inflight)

    async def start(
        self,
        *,
        work: Route[Any],
        planning: Route[Any],
        cancelled: Callable[[RunCancelRequested], None],
        finished: Callable[[RunFinished], None],
    ) -> None:
        """Watch run ends first (so no end is missed), then start pulling."""
        for subject, callback in (
            (any_run_subject(RunCancelRequested), self._watch(RunCancelRequested, cancelled)),
            (any_run_subject(RunFinished), self._watch(RunFinished, finished)),
        ):
            self._watchers.append(await self._nc.subscribe(subject, cb=callback))
        self._feeders = [
            self._feeder(STREAM_EVENTS, PLANNER_CONSUMER, PLANNING_CAPACITY, planning),
            self._feeder(STREAM_WORK, WORK_CONSUMER, self._max_in_flight, work),
        ]
        for feeder in self._feeders:
            await feeder.start()
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    def on_reconnected(self) -> None:
        """The server may have forgotten our pull requests: ask again."""
        for feeder in self._feeders:
            feeder.reset()

    def end_run(self, run_id: str, over: RunOver) -> None:
        """Mark the run over and cancel its in-flight evaluations (their items get acked)."""
        run = self._runs.end(run_id, over)
        current = asyncio.current_task()
        tasks = [t for t in self._inflight.of_run(run_id) if t is not current]
        for task in tasks:
            task.cancel()
        if tasks or run is not None:
            log.info("run ended here", run_id=run_id, reason=over.reason, stopped=len(tasks))
        if run is not None:
            self._spawn_background(self._close_after(run, tasks))

    async def stop(self) -> None:
        """Stop pulling, let in-flight items finish within the grace period, nak the rest
        once none of our pull requests is open (see `pull_feeder`), then unsubscribe."""
        for feeder in self._feeders:
            feeder.stop_requesting()
        quiet = asyncio.gather(*(feeder.wait_quiet() for feeder in self._feeders))
        grace_ends = time.monotonic() + self._grace_s
        if self._inflight.tasks():
            await asyncio.wait(self._inflight.tasks(), timeout=self._grace_s)
        await quiet
        late = self._inflight.tasks()  # including items that arrived while stopping
        if late:
            _, late_set = await asyncio.wait(late, timeout=max(0.0, grace_ends - time.monotonic()))
            for task in late_set:
                task.cancel()
            await asyncio.gather(*late_set, return_exceptions=True)
            log.info("handed items back", count=len(late_set))
        for feeder in self._feeders:
            await feeder.close()
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
        for sub in self._watchers:
            await quietly(sub.unsubscribe())
        await asyncio.gather(*self._background, return_exceptions=True)
        for run in self._runs.drain():
            await self._close(run)

    def _feeder(self, stream: str, durable: str, capacity: int, route: Route[Any]) -> PullFeeder:
        credits = PullCredits(
            capacity=capacity,
            chunk=PULL_CHUNK,
            max_open=PULL_MAX_OPEN,
            expires_s=self._pull_expires_s,
        )
        feeder = PullFeeder(
            self._nc,
            stream=stream,
            durable=durable,
            credits=credits,
            on_message=lambda msg: self._receive(msg, route, feeder),
        )
        return feeder

    def _receive(self, msg: Msg, route: Route[Any], feeder: PullFeeder) -> None:
        loop = asyncio.get_running_loop()
        event = decode(msg, route.event_type)
        if event is None:  # a poison message would be redelivered forever: terminate it
            self._spawn_background(self._answer(msg, feeder, "term"))
            return
        if self._runs.over(event.run_id) is not None:  # a late item of a run that ended
            self._spawn_background(self._answer(msg, feeder, "ack"))
            return
        task = loop.create_task(self._settle(msg, event, route, feeder))
        self._inflight.add(task, msg, event.run_id, time.monotonic())

    async def _settle(self, msg: Msg, event: Event, route: Route[Any], feeder: PullFeeder) -> None:
        task = asyncio.current_task()
        try:
            await route.handle(event)
        except asyncio.CancelledError:
            # Cancelled because the run ended (ack: nothing more to do) or on shutdown (nak:
            # another runner takes it now).
            ended = self._runs.over(event.run_id) is not None
            await self._answer(msg, feeder, "ack" if ended else "nak")
            raise
        except Exception as exc:
            log.error(
                "item failed; it will be redelivered",
                run_id=event.run_id,
                event_name=event.name,
                error=f"{type(exc).__name__}: {exc}",
            )
            await self._answer(msg, feeder, "retry")
        else:
            await self._answer(msg, feeder, "ack")
        finally:
            if task is not None:
                self._inflight.remove(task)

    async def _answer(self, msg: Msg, feeder: PullFeeder, action: Settle) -> None:
        try:
            await answer(msg, action)
        finally:
            feeder.settled()

    def _watch(
        self, event_type: type[E], handler: Callable[[E], None]
    ) -> Callable[[Msg], Coroutine[Any, Any, None]]:
        async def on_message(msg: Msg) -> None:
            event = decode(msg, event_type)
            if event is not None:
                handler(event)

        return on_message

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self._tick_s)
            for msg in self._inflight.due(time.monotonic(), self._progress_s):
                await quietly(msg.in_progress())
            for feeder in self._feeders:
                await feeder.top_up()
            for run in self._runs.idle(SESSION_IDLE_S, busy=self._inflight.busy):
                self._spawn_background(self._close(run))

    async def _close_after(self, run: OpenRun, tasks: list[asyncio.Task[None]]) -> None:
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_S)
        await self._close(run)

    async def _close(self, run: OpenRun) -> None:
        try:
            await run.session.close()
        except Exception as exc:
            log.warning("session close failed", run_id=run.run_id, error=str(exc))

    def _spawn_background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
