"""Talking to models: transcript types, wires, presets, catalogue and router."""
