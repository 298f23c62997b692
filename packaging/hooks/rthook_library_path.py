"""Runtime hook: give programs Sightline starts the library path the person had.

On Linux PyInstaller's bootloader points LD_LIBRARY_PATH at the bundle's `_internal`
folder (keeping the old value in LD_LIBRARY_PATH_ORIG). Sightline itself no longer
needs it once running (the dynamic linker read it at start-up), but every program
it starts inherits it: `xdg-open` behind "Open data folder", a file manager, an MCP
server given an `env`. Those would load our copies of glib or libstdc++ instead of
their own. PyInstaller's documentation recommends restoring the original value.
"""

import os
import sys

if sys.platform.startswith("linux") and getattr(sys, "frozen", False):
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = original
