"""The Sightline program: config, store, the turn loop, tools, CLI and UI."""

import sys

# httpx imports its own command line (click, pygments' lexers, and rich where installed)
# whenever click is importable, which uvicorn makes so in every install; Sightline never
# runs it. Marking it absent makes httpx fall back to its stub: 120-150 ms off every
# process that talks to a model (`sightline ask`, the window's first listing).
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
