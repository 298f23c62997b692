"""The Sightline program: config, store, the turn loop, tools, CLI and UI."""

__version__ = "0.1.0"
