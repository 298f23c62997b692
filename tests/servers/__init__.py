"""Loopback servers that speak real providers' APIs, for tests and for trying the app."""
