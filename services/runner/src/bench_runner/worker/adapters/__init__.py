"""Adapters of the worker: JetStream (publish, read, data keys, consumers, pulling), the
engine session, and the attempt sink that turns request records into events."""
