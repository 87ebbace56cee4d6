"""Archiver integration tests: a private nats-server per test (`restartable_nats`), SeaweedFS
(checks signatures) started once per session, one fresh bucket per test, and moto where only
speed matters."""
