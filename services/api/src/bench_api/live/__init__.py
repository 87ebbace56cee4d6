"""The live side of the api: server-sent events fed from NATS (pure parts, no I/O clients).

`cursor` encodes stream positions into SSE event ids, `frames` the wire format, `wire` and
`tally` turn events into frames, `fanout` shares one feed among many open streams, each
with a paced queue (`subscriber`), `hub` keeps one topic per feed and closes idle ones, and
`session` is one client's byte stream.
"""
