"""Tests for the app package: config, store, turn loop, tools and CLI."""
