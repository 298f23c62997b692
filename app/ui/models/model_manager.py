"""Local models: one Ollama provider's installed models, pulled and deleted from the window.

A non-modal dialog. It lists the models the controller's listing has for the
provider, each with its eye badge where it sees, its size, and Delete after a
confirmation (installed_models.py); pulls a model by name with a
progress bar (app/ui/models/pull_progress.py) and Cancel; and, with `suggest_vision`,
first offers a few small models that see (app/ui/models/vision_offer.py), each with its
download size: approximate until Ollama reports the real one during the pull.
One pull runs at a time. When a pull finishes the controller lists models again,
and once the picker has the new model `pulled` carries its ref, so the window can
pick it or describe pictures with it.

The network work runs as asyncio tasks on the window's qasync loop; closing the
dialog cancels them (Ollama stops a pull whose client goes, keeping what it has).
Every failure is shown in words in the dialog.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from contextlib import aclosing
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.presenters.listing import ModelListing
from app.ui.chores import Chores
from app.ui.models.installed_models import InstalledModels
from app.ui.models.pull_progress import PullProgressBox
from app.ui.models.vision_offer import VisionOffer
from app.ui.named import named_button, named_label
from app.ui.theme import show_problem
from routing.addresses import ollama_base_url
from routing.endpoints import endpoint_name
from routing.errors import ModelNotFound, ProviderError
from routing.ollama_models import delete, listed_name, pull

if TYPE_CHECKING:
    from app.ui.controller import Controller
    from routing.models import ModelInfo, ProviderConfig

log = logging.getLogger(__name__)

TITLE = "Local models"


def _heading(text: str, name: str, parent: QWidget) -> QLabel:
    heading = named_label(text, name, parent)
    font = heading.font()
    font.setBold(True)
    heading.setFont(font)
    return heading


class ModelManager(QDialog):
    """Pull, watch, cancel and delete the models of one Ollama provider."""

    pulled = Signal(str)  # "provider:model" of a model just pulled, once the picker lists it

    def __init__(
        self,
        controller: Controller,
        provider_id: str,
        parent: QWidget | None = None,
        suggest_vision: bool = False,
    ) -> None:
        """The dialog for `provider_id` (an Ollama provider of the controller's listing)."""
        super().__init__(parent)
        self.controller = controller
        self.provider_id = provider_id
        self.suggest_vision = suggest_vision
        self.setWindowTitle(TITLE)
        self.setAccessibleName(TITLE)
        self.setModal(False)
        self.setMinimumWidth(480)
        self._pull: asyncio.Task[None] | None = None
        self._pulling = ""  # the name being pulled
        self._deletes = Chores()
        self._awaited = ""  # the ref of a model pulled, until the listing has it
        self._relist_after = False  # list again once the listing under way ends
        self._closed = False

        self.where = named_label("", "Where the models are", self)
        self.vision_box = VisionOffer(self)
        self.vision_rows = self.vision_box.rows
        self.installed_heading = _heading("Installed", "Installed models heading", self)
        self.installed = InstalledModels(self)
        self.name_edit = QLineEdit(self)
        self.name_edit.setAccessibleName("Model to pull")
        self.name_edit.setPlaceholderText("A name from ollama.com/library, such as qwen2.5vl:3b")
        self.pull_button = named_button("Pull", "Pull the model named", "", self)
        self.progress = PullProgressBox(self)
        self.message = named_label("", "Local models message", self)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close = self.buttons.button(QDialogButtonBox.StandardButton.Close)
        close.setAccessibleName("Close")
        self._build()
        self.resize(540, 660)  # the offer, four installed rows and a message without scrolling

        self.pull_button.clicked.connect(lambda: self.pull_model(self.name_edit.text()))
        self.name_edit.returnPressed.connect(lambda: self.pull_model(self.name_edit.text()))
        self.progress.cancel_requested.connect(self.cancel_pull)
        self.vision_box.pull_requested.connect(self.pull_model)
        self.installed.delete_confirmed.connect(self._delete_confirmed)
        self.buttons.rejected.connect(self.reject)
        controller.models_changed.connect(self._listing_changed)
        self._listing_changed(controller.listing)

    def _build(self) -> None:
        self.vision_box.setVisible(self.suggest_vision)
        line = QHBoxLayout()
        line.addWidget(self.name_edit, 1)
        line.addWidget(self.pull_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.where)
        layout.addWidget(self.vision_box)
        layout.addWidget(self.installed_heading)
        layout.addWidget(self.installed, 1)
        layout.addWidget(_heading("Pull a model", "Pull a model heading", self))
        layout.addLayout(line)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)

    # -- the provider and its models ---------------------------------------------------

    def provider(self) -> ProviderConfig | None:
        """The Ollama provider these models are on, as the listing has it (None: gone)."""
        listing = self.controller.listing
        found = next((p for p in listing.providers if p.id == self.provider_id), None)
        return found if found is not None and found.kind == "ollama" else None

    def installed_models(self) -> list[ModelInfo]:
        """The provider's models as the latest listing has them (with sight and size)."""
        models = self.controller.listing.models
        return [m for m in models if m.provider_id == self.provider_id]

    def installed_names(self) -> list[str]:
        """The provider's models' names as the latest listing has them."""
        return [m.name for m in self.installed_models()]

    def _listing_changed(self, listing: ModelListing) -> None:
        if self._closed:
            return
        provider = self.provider()
        if provider is None:
            self.where.setText(f"There is no Ollama provider called {self.provider_id} now.")
        else:
            url = ollama_base_url(provider.base_url, self.controller.environ)
            self.where.setText(f"Models in Ollama at {endpoint_name(url)}")
        for widget in (self.name_edit, self.pull_button, self.vision_box):
            widget.setEnabled(provider is not None)
        models = self.installed_models()
        self.installed.show_installed(models, listing.listing)
        self.vision_box.show_installed([m.name for m in models])
        self._check_awaited(listing)

    def _check_awaited(self, listing: ModelListing) -> None:
        """Tell the window about a pulled model once the picker lists it."""
        ref = self._awaited
        if not ref:
            return
        name = ref.split(":", 1)[-1]
        if any(m.ref == ref for m in listing.models):
            self._awaited = ""
            self._say(f"{name} is ready and listed: choose it in the model picker.")
            self.pulled.emit(ref)
        elif not listing.listing:
            if self._relist_after:  # that listing began before the pull ended
                self._relist_after = False
                self.controller.refresh_models()
                return
            self._awaited = ""  # Ollama doesn't list it (yet): the window may still try
            self._say(
                f"{name} is ready, but Ollama doesn't list it yet: open Local models again later."
            )
            self.pulled.emit(ref)

    def _relist(self) -> None:
        """List the models again (after the listing under way, which may predate a change)."""
        if self.controller.listing.listing:
            self._relist_after = True
        else:
            self.controller.refresh_models()

    # -- pulling -----------------------------------------------------------------------

    @property
    def pulling(self) -> str:
        """The name of the model being pulled, or ""."""
        return self._pulling if self._pull is not None and not self._pull.done() else ""

    def pull_model(self, name: str) -> bool:
        """Start pulling `name`; False (with words why) when it can't start now."""
        name = name.strip()
        if self.pulling:
            self._say(
                f"Already pulling {self.pulling}: one at a time. Wait for it to finish, or "
                "cancel it, then pull the next.",
                error=True,
            )
            return False
        if not name:
            self._say("Type the name of a model to pull, such as qwen2.5vl:3b.", error=True)
            return False
        provider = self.provider()
        if provider is None:
            self._say(f"There is no Ollama provider called {self.provider_id} now.", error=True)
            return False
        self._say("")
        self._pulling = name
        self.progress.start(name)
        self._pull = asyncio.ensure_future(self._run_pull(provider, name))
        return True

    def cancel_pull(self) -> None:
        """Stop the pull that runs (Ollama keeps what it downloaded)."""
        if self._pull is not None and not self._pull.done():
            self._pull.cancel()

    async def _run_pull(self, provider: ProviderConfig, name: str) -> None:
        steps = pull(
            provider.base_url,
            name,
            provider_id=provider.id,
            local=provider.local,
            environ=self.controller.environ,
        )
        try:
            async with aclosing(steps):
                async for step in steps:
                    self.vision_box.show_size(name, step.total)  # Ollama's own, once it says
                    self.progress.show_step(name, step)
        except asyncio.CancelledError:
            self._stopped(name)
            raise
        except ProviderError as exc:
            log.warning("pulling %s failed: %s", name, exc.detail or exc.message)
            self._failed(exc.message)
            return
        except Exception as exc:  # a bug must still end the progress, in words
            log.exception("pulling %s failed", name)
            self._failed(f"Pulling {name} failed: {exc}")
            return
        self.progress.finish()
        self._say(f"{name} is ready. Sightline is listing it now.")
        self._awaited = f"{provider.id}:{listed_name(name)}"
        self._relist()

    def _stopped(self, name: str) -> None:
        self._failed(
            f"Stopped pulling {name}. Ollama keeps what it already downloaded: pull it again "
            "to carry on.",
            error=False,
        )

    def _failed(self, words: str, *, error: bool = True) -> None:
        if not self._closed:
            self.progress.finish()
            self._say(words, error=error)

    # -- deleting ----------------------------------------------------------------------

    def _delete_confirmed(self, name: str) -> None:
        if not self._closed:
            self.delete_model(name)

    def delete_model(self, name: str) -> None:
        """Delete `name` now (no question: `confirm_delete` asks first)."""
        provider = self.provider()
        if provider is None:
            self._say(f"There is no Ollama provider called {self.provider_id} now.", error=True)
            return
        self.installed.set_deletable(name, False)
        self._say(f"Deleting {name}…")
        self._deletes.run(self._run_delete(provider, name))

    async def _run_delete(self, provider: ProviderConfig, name: str) -> None:
        try:
            await delete(
                provider.base_url,
                name,
                provider_id=provider.id,
                local=provider.local,
                environ=self.controller.environ,
            )
        except ModelNotFound as exc:  # gone already: the listing was behind
            self._say(exc.message, error=True)
        except ProviderError as exc:
            log.warning("deleting %s failed: %s", name, exc.detail or exc.message)
            self._say(exc.message, error=True)
            self.installed.set_deletable(name, True)
            return
        except Exception as exc:  # a bug must still end "Deleting…", in words
            log.exception("deleting %s failed", name)
            self._say(f"Deleting {name} failed: {exc}", error=True)
            return
        else:
            self._say(f"Deleted {name}.")
        self._relist()

    # -- words and closing -------------------------------------------------------------

    def _say(self, text: str, *, error: bool = False) -> None:
        if self._closed:
            return
        show_problem(self.message, error)
        self.message.setText(text)
        self.message.setAccessibleDescription(text)

    def showEvent(self, event: QShowEvent) -> None:
        """Shown again after a close: follow the listing again."""
        if self._closed:
            self._closed = False
            self.controller.models_changed.connect(self._listing_changed)
            self._listing_changed(self.controller.listing)
        super().showEvent(event)

    def done(self, result: int) -> None:
        """Stop the pull and deletes with the dialog (Ollama stops a pull whose client goes)."""
        if self.pulling:  # said now: the task hears of its cancelling only later
            self._stopped(self.pulling)
        self._closed = True
        if self._pull is not None and not self._pull.done():
            self._pull.cancel()
        self._deletes.cancel()
        self.installed.close_question()
        with contextlib.suppress(RuntimeError):  # already disconnected by an earlier close
            self.controller.models_changed.disconnect(self._listing_changed)
        super().done(result)
