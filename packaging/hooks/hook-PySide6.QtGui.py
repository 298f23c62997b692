"""Sightline's hook for PySide6.QtGui: PyInstaller's own, keeping only the Qt plugins we use.

The stock hook collects every plugin of QtGui's plugin types; each one also pulls in
the libraries it links (the GTK theme brings pango, cairo and atk; Wayland and EGLFS
bring their own Qt libraries). Plugins are dropped here, before PyInstaller looks
for their libraries, so those libraries stay out too. A hook in `hookspath` takes
the place of PyInstaller's hook for the same module.
"""

from pathlib import Path

from PyInstaller.utils.hooks.qt import add_qt6_dependencies

# Plugin types dropped whole: EGLFS/KMS (full-screen embedded), evdev/tuio input
# (for EGLFS), and Wayland's client plugins (on a Wayland desktop Qt falls back to
# xcb through XWayland when its Wayland platform plugin is absent).
DROPPED_TYPES = {
    "egldeviceintegrations",
    "generic",
    "wayland-decoration-client",
    "wayland-graphics-integration-client",
    "wayland-shell-integration",
}

# For these types, only the plugins named (file name without `lib` and suffix).
KEPT = {
    # xcb for X11 (and XWayland), offscreen for --smoke and the tests, windows and
    # cocoa for the other two systems.
    "platforms": {"qxcb", "qoffscreen", "qwindows", "qcocoa"},
    # Thumbnails of what Sightline accepts (vision/pictures.py: PNG, JPEG, GIF, WebP,
    # BMP, TIFF, ICO; PNG and BMP are built into QtGui) and the SVG badges.
    "imageformats": {"qgif", "qico", "qjpeg", "qsvg", "qtiff", "qwebp"},
    # Native file dialogs through the desktop portal. Not the GTK 3 theme: GTK is not
    # bundled, and the plugin would load the system's GTK against our copies of glib.
    "platformthemes": {"qxdgdesktopportal"},
}


def _kept(source: str, plugin_dir: str) -> bool:
    parts = Path(plugin_dir).parts
    if "plugins" not in parts:
        return True  # a Qt library, not a plugin
    plugin_type = "/".join(parts[parts.index("plugins") + 1 :])
    if plugin_type in DROPPED_TYPES:
        return False
    wanted = KEPT.get(plugin_type)
    name = Path(source).name.split(".")[0].removeprefix("lib")
    return wanted is None or name in wanted


hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries = [(source, dest) for source, dest in binaries if _kept(source, dest)]
