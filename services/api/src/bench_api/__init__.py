"""API service: REST, server-sent events, dashboard; owns MySQL."""
