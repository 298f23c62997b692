"""The Sightline program: config, store, the turn loop, tools, CLI and UI."""
