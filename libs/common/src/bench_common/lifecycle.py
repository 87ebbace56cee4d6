"""Process lifecycle shared by the services' composition roots and the `bench` commands.

Signal handlers are installed with `contextlib.suppress(NotImplementedError, RuntimeError)`:
that is not an unfinished branch but the documented failure of `loop.add_signal_handler` on
platforms without Unix signals (NotImplementedError) or outside the main thread
(RuntimeError), where the caller's own stop path still works.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable


def on_signals(callback: Callable[[], object]) -> None:
    """Call `callback` on SIGINT or SIGTERM (from inside the running loop)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, callback)


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM, for a service's serve loop to wait on.

    Must be called from inside the running loop. Where signal handlers cannot be installed
    (not the main thread, or a platform without them) the event is only set by its caller.
    """
    stop = asyncio.Event()
    on_signals(stop.set)
    return stop
