"""Scheduler integration tests, each on a private nats-server (`restartable_nats`).

A private server per test, not the session's shared one: the scheduler folds every run on
its server into the active-run cap, and a work-queue stream refuses consumers that overlap
another test's (or another service's) work consumer.
"""
