"""Codex's app server as an engine (see engine.py); not yet wired into config, ask or the window."""
