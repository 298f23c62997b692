"""The window: the only package that imports Qt (kept import-free so `app.cli` stays quick)."""
