"""The window's Qt-free logic: what the widgets show and what the person's actions decide.

Kept apart from `app.ui` (the widgets) and free of Qt by an import-linter contract, so
it is tested without a window, as napari keeps `napari/components` apart from `napari/_qt`.
"""
