"""Agents in the window: how an agent's thinking and plan look, and Settings ▸ Agents."""
