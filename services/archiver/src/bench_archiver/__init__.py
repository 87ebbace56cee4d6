"""Archiver service: Parquet, reports and manifest of finished runs, uploaded to S3-compatible
storage (DigitalOcean Spaces)."""
