"""The projection's pure core: events -> row changes (no database, broker or web imports)."""
