"""Scheduler service: admission, dispatch credits, cancellation, final status."""
