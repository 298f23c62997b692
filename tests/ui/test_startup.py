"""Start-up stays lean: what `sightline --smoke` has imported when the window first paints.

Each module below was moved out of the first paint's way (docs/architecture.md,
"Start-up stays lean"); a top-level import that brings one back fails here
instead of quietly slowing every start. The smoke runs as a whole process, as
`python -m benchmarks startup` measures it, with a probe that notes
`sys.modules` at the first paint and when model listing starts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SightlineHome, write_config
from tests.servers.loopback import closed_port
from tests.ui.helpers import run_python

# Runs `python -m app --smoke` with notes written to argv[1]: the modules at
# the first paint (with the Qt classes built and the modules PySide6 read by then),
# and those when the session starts listing models.
PROBE = """
import json, sys
from app.ui import app as window_app  # the standard library only: Qt is not loaded yet

notes = []
paint_first = window_app._paint_first

def first_paint():
    notes.append(["paint", sorted(n for n, m in sys.modules.items() if m is not None)])
    # PySide6 builds its classes when first used: these are the ones built by now.
    built = [
        name
        for module in ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets")
        for name in vars(sys.modules[module])
        if name.startswith("Q")
    ]
    notes.append(["qt", built])
    # The modules PySide6's import hook has read the source of (app/ui/app.py).
    notes.append(["read", sorted(sys.modules["shibokensupport.feature"].pyside_feature_dict)])

def noting_paint_first(session, timeout_s):
    session.window.first_painted.connect(first_paint)  # after the session's own
    started = type(session).start

    def start(self):
        notes.append(["start", sorted(n for n, m in sys.modules.items() if m is not None)])
        started(self)

    type(session).start = start
    paint_first(session, timeout_s)

window_app._paint_first = noting_paint_first
from app.cli import main
status = main(["--smoke"])
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    json.dump(notes, handle)
sys.exit(status)
"""

# Not before the first paint, whatever the config says; each loads when first needed.
NEVER_BEFORE_PAINT = {
    "asyncio": "the asyncio loop (qasync) starts after the first paint",
    "qasync": "the asyncio loop (qasync) starts after the first paint",
    "app.turn.runner": "turns, tools and the network side start after the first paint",
    "app.turn.tool_step": "turns, tools and the network side start after the first paint",
    "app.keys": "keys are read when the controller connects, after the first paint",
    "keyring": "keys are read when the controller connects, after the first paint",
    "routing.wires.base": "wires load when models are listed",
    "routing.catalogue": "wires load when models are listed",
    "httpx": "wires load when models are listed",
    "app.ui.conversation.message_rows": "the kinds of row load with the first row",
    "app.ui.conversation.pdf_tiles": "the kinds of row load with the first row",
    "app.ui.conversation.tool_rows": "the kinds of row load with the first row",
    "app.ui.conversation.notice_rows": "the kinds of row load with the first row",
    "app.ui.conversation.markdown": "Markdown loads with the first message shown",
    "app.ui.conversation.painting": "the painting helpers load with the first row drawn",
    "app.presenters.welcome": "a first start's welcome words load when it has something to say",
    "app.presenters.deleted_chats": "what the undo bar says loads with the first delete",
    "routing.agent_offers": "what an agent offered loads with the first agent",
    "app.ui.conversation.highlight": "Pygments loads with the first code block",
    "pygments": "Pygments loads with the first code block",
    "app.export": "export loads when the person exports",
    "app.ledger": "the ledger loads when it is shown",
    "app.ui.settings.settings_dialog": "Settings load when opened",
    "app.ui.settings.providers_page": "Settings load when opened",
    "logging.handlers": "the log file rotates from its first record",
    "uuid": "ids are made with the first conversation",
    "hashlib": "files are hashed when first attached or read (vision/files.py)",
    "html": "rich text is escaped when it is first shown",
    "PIL": "Pillow loads with the first picture",
    "mcp": "the MCP SDK loads when a chat first uses an MCP server",
    "pypdfium2": "the PDF library loads with the first PDF",
    "acp": "the agent SDK loads with the first agent turn",
    "app.turn.acp": "agents load with the first agent turn",
    "app.turn.codex": "agents load with the first agent turn",
    "routing.wires": "wires load when models are listed",
    "app.cli.mcp_serve": "the window starts without building the command line's parser",
    "app.cli.parser": "the window starts without building the command line's parser",
    "importlib.resources": "Sightline's files are read from its package's folder (resources/)",
    "app.ui.composer.approval_card": "the approval card is made when a tool call first asks",
    "app.serve": "the server for other apps loads when it is turned on, after the first paint",
    "uvicorn": "the server for other apps loads when it is turned on, after the first paint",
    "starlette": "the server for other apps loads when it is turned on, after the first paint",
    "routing.transcript": "a chat's messages load with the first chat opened; a new one has none",
    "vision.pdf": "PDFs load with the first chat opened or file attached",
    "vision.pictures": "pictures load with the first chat opened or file attached",
    "app.store.parts": "a chat's messages load with the first chat opened; a new one has none",
    "app.store.bulk": "imports load when the person imports",
    "app.presenters.pending": "the composer's attachments load with the first one",
    "app.presenters.pdf_notes": "the composer's attachments load with the first one",
    "app.ui.composer.cards": "attachment cards load with the first one",
    "app.ui.conversation.thumbnails": "thumbnails load with the first picture drawn",
    "cachetools": "thumbnails load with the first picture drawn",
    "app.ui.sending": "the send loads with the first send, after the first paint",
    "app.ui.turn_side": "turns, tools and the network side start after the first paint",
    "app.ui.running_turn": "turns, tools and the network side start after the first paint",
    "app.ui.window_server": "the server for other apps loads when turned on, after the first paint",
    "app.presenters.approvals": "tool calls ask for approval after the first paint",
    "PySide6.QtSvg": "badges are drawn when a model is listed; the paper clip by QPainter",
    "app.ui.conversation.versions": "deletes with Undo are made ready after the first paint",
    "routing.chat_settings": "a chat's own settings are read when its panel or a turn needs them",
    "app.presenters.context_meter": "the context meter reads with the first listed model",
    "app.ui.conversation.message_actions": "a row's actions load with its first menu or click",
    "app.ui.ledger_panel": "the ledger is made when first opened",
}


# What a chat of words, left open and shown again in the first frame, doesn't need.
NOT_FOR_WORDS = {
    "app.ui.conversation.tool_rows": "a tool's row is made with the first one shown",
    "app.ui.agents.agent_rows": "an agent's row is made with the first one shown",
    "app.presenters.pdf_notes": "a PDF's tile loads its words with the first one drawn",
    "app.presenters.pending": "attachments are read with the first one attached",
    "app.attachments": "attachments are read with the first one attached",
    "vision.pdf": "PDFs are read with the first one attached or shown",
    "app.ui.sending": "the send loads with the first send; the chat's folder needs none",
}

# Qt classes the first paint needs none of; each costs 1–5 ms to build (PySide6 builds
# a class, with all its enums, the first time Python touches it).
QT_NEVER_BEFORE_PAINT = {
    "QMessageBox": "dialogs are built when they open",
    "QFileDialog": "dialogs are built when they open",
    "QInputDialog": "dialogs are built when they open",
    "QDesktopServices": "links open when followed",
    "QUrl": "links open when followed",
    "QImageReader": "pictures are read when the first is shown",
    "QAccessible": "nothing has the focus to announce before the first paint",
    # Built with the first row drawn, or the first theme applied (app/ui/settings/appearance.py).
    "QStyle": "a first start draws no row and keeps the platform's look",
    "QStyleOptionViewItem": "a first start draws no row; the model list is measured as it opens",
    # QIcon's theme names are 157 enum members (about 10 M instructions to build).
    "QIcon": "the paper clip is painted by its button; badges come with the first model",
    "QImage": "pictures and badges are drawn with the first one shown",
    "QSettings": "a first start has no window.ini to read",
    "QByteArray": "a first start has no window.ini to read",
    "QKeySequence": "the menus' entries and the shortcuts are added just after the first paint",
    "QShortcut": "the menus' entries and the shortcuts are added just after the first paint",
    # Handing Python a widget Qt made (a scroll area's own viewport) builds every
    # QWidget class to tell which it is: app/ui/viewport.py gives views their own.
    "QCalendarWidget": "no view hands Python a viewport Qt made",
    "QWizard": "no view hands Python a viewport Qt made",
    "QMdiArea": "no view hands Python a viewport Qt made",
}


def _smoke(home: SightlineHome, tmp_path: Path) -> dict[str, set[str]]:
    notes = tmp_path / "notes.json"
    done = run_python(home.env(), "-c", PROBE, str(notes))
    assert done.returncode == 0, done.stderr
    timings = json.loads(done.stdout.strip().splitlines()[-1])
    assert timings["smoke"] == "ok"
    assert timings["collection"] == "window thread"  # app/ui/main_thread_gc.py is running
    events = json.loads(notes.read_text(encoding="utf-8"))
    assert [name for name, _ in events] == ["paint", "qt", "read", "start"], (
        "listing after the paint"
    )
    return {name: set(modules) for name, modules in events}


def _loaded(modules: set[str], names: dict[str, str]) -> dict[str, str]:
    return {
        name: why
        for name, why in names.items()
        if name in modules or any(m.startswith(f"{name}.") for m in modules)
    }


def test_the_first_paint_comes_before_what_it_does_not_need(tmp_path: Path) -> None:
    home = SightlineHome(config=tmp_path / "config.toml", data=tmp_path / "data")
    write_config(home.config, None)  # no provider named: the common first start
    at = _smoke(home, tmp_path)
    not_yet = NEVER_BEFORE_PAINT | {
        "routing.models": "no provider is named in the config",
        "routing.presets": "no provider is named in the config",
    }
    assert _loaded(at["paint"], not_yet) == {}
    assert {name: why for name, why in QT_NEVER_BEFORE_PAINT.items() if name in at["qt"]} == {}
    # Listing starts on the asyncio loop, which runs by then.
    assert "asyncio" in at["start"]


def test_pyside_reads_no_module_source_once_the_window_starts(tmp_path: Path) -> None:
    """PySide6's import hook, which greps each newly imported module for "PySide6", is gone.

    With it, about 190 modules were read before the first paint, and their text
    kept in memory by `linecache`.
    """
    home = SightlineHome(config=tmp_path / "config.toml", data=tmp_path / "data")
    write_config(home.config, None)
    at = _smoke(home, tmp_path)
    assert "app.ui.main_window" in at["paint"]
    ours = {name for name in at["read"] if name.split(".")[0] in {"app", "routing", "vision"}}
    assert ours == set()
    assert "linecache" not in at["read"]  # nor the standard library's


def test_a_config_with_providers_still_paints_before_asyncio(
    home: SightlineHome, tmp_path: Path
) -> None:
    at = _smoke(home, tmp_path)  # its config names the loopback Ollama
    assert _loaded(at["paint"], NEVER_BEFORE_PAINT) == {}
    assert "routing.models" in at["paint"]  # the config's providers are read before the paint


def test_a_window_left_serving_other_apps_still_paints_before_the_server_loads(
    home: SightlineHome, tmp_path: Path
) -> None:
    earlier = home.config.read_text(encoding="utf-8")
    port = closed_port()
    home.config.write_text(
        f"serve_in_window = true\nserve_port = {port}\n{earlier}", encoding="utf-8"
    )
    at = _smoke(home, tmp_path)  # it serves from the start: after the paint
    assert _loaded(at["paint"], NEVER_BEFORE_PAINT) == {}


def test_a_returning_start_shows_the_chat_left_open_before_any_lexer_is_built(
    tmp_path: Path,
) -> None:
    from app.store import Store
    from routing.transcript import Message, TextPart

    home = SightlineHome(config=tmp_path / "config.toml", data=tmp_path / "data")
    write_config(home.config, None)
    with Store.open(home.data) as store:
        chat = store.conversations.create()
        store.add_message(chat, Message("user", (TextPart("Count to three?"),)))
        answer = "Like this:\n\n```python\nfor n in range(3):\n    print(n)\n```"
        store.add_message(chat, Message("assistant", (TextPart(answer),), model="m"))
    (home.data / "window.ini").write_text(f"[chat]\nlast={chat}\n", encoding="utf-8")
    at = _smoke(home, tmp_path)
    # The chat is in the first frame, its code plain: Pygments comes after that paint.
    assert "app.ui.conversation.markdown" in at["paint"]
    assert _loaded(at["paint"], {"pygments": "lexers are built after the paint"}) == {}
    # Words alone: no PDF, tool or agent row to draw, and no send yet.
    assert _loaded(at["paint"], NOT_FOR_WORDS) == {}


def test_an_import_hook_not_pysides_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from app.ui.app import plain_imports_again

    def someone_elses(*args: Any, **kwargs: Any) -> Any:
        return builtins.__orig_import__(*args, **kwargs)  # type: ignore[attr-defined]

    monkeypatch.setattr(builtins, "__import__", someone_elses)
    assert plain_imports_again() is False
    assert builtins.__import__ is someone_elses
