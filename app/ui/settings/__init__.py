"""Settings: the dialog and its pages (providers, tools, privacy and routing, appearance)."""
