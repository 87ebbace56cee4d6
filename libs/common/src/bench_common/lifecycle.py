"""Process lifecycle shared by the services' composition roots."""

from __future__ import annotations

import asyncio
import contextlib
import signal


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM, for a service's serve loop to wait on.

    Must be called from inside the running loop. Where signal handlers cannot be installed
    (not the main thread, or a platform without them) the event is only set by its caller.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    return stop
