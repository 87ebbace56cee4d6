"""The runner worker: runs dispatched evaluations of managed runs with the CLI's engine.

Read `docs/managed-protocol.md` ("Planning (runners)" and "Work (runners)"). `main.py` is the
composition root; `handlers.py` routes decoded events to the cores (`planning.py`, `work.py`,
`opening.py`, `sessions.py`); `adapters/` holds everything that speaks NATS or the engine.
"""
