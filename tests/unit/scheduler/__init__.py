"""Scheduler unit tests: the pure cores and the handlers over fakes, no server."""
