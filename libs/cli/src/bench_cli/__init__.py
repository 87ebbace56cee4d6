"""The `bench` command dispatcher."""
