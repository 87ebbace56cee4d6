"""I/O behind small protocols: object storage (S3), NATS JetStream, the staging directory."""
