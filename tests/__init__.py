"""Sightline's tests; `tests.servers` holds loopback servers that speak real APIs."""
