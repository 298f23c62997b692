"""The model picker: Auto first, then models under "On this computer" and "Cloud", with badges,
then the configured agents under "Agents" (each named with the word "agent").

In the open list each model has its badges (eye: sees pictures; wrench: can
use tools) at the right, drawn by `_PickerDelegate`; the closed box shows the
chosen model's badges before its name.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QSizePolicy, QStyledItemDelegate, QWidget

from app.ui.icons import BADGE, BADGE_GAP, badge_image, badges_icon
from routing.agent_refs import agent_ref, ref_parts

if TYPE_CHECKING:  # models come after the first paint, and routing.models with them
    from PySide6.QtWidgets import QStyleOptionViewItem  # Qt hands it over with a row

    from routing.agent_offers import AgentOffer
    from routing.models import ModelInfo

_Index = QModelIndex | QPersistentModelIndex

AUTO = "auto"
AUTO_LABEL = "Auto — Sightline chooses"
LOCAL_HEADER = "On this computer"
CLOUD_HEADER = "Cloud"
MISSING_HEADER = "Not listed right now"
AGENTS_HEADER = "Agents"
AGENT_WORD = "agent"
UNKNOWN = "unknown"
_MIN_CHARACTERS, _MAX_CHARACTERS = 12, 34  # the closed box's width, in wide characters


class PickerRole(IntEnum):
    """Data roles of the picker's rows (tests read these, not pixels).

    Every row has every role and none is ever None: PySide6 6.12 miscounts the
    references of a None read back from Qt (see conversation_model.Role).
    """

    REF = Qt.ItemDataRole.UserRole + 1  # "auto" or "provider:model"; "" on a header
    SEES = Qt.ItemDataRole.UserRole + 2  # True, False, or UNKNOWN
    TOOLS = Qt.ItemDataRole.UserRole + 3  # True, False, or UNKNOWN
    LOCAL = Qt.ItemDataRole.UserRole + 4  # True for a model on this computer
    HEADER = Qt.ItemDataRole.UserRole + 5  # True on the group titles
    AGENT = Qt.ItemDataRole.UserRole + 6  # True for an agent (its ref: `AGENT` or `AGENT:MODEL`)


def sight_words(model: ModelInfo) -> list[str]:
    """What the badges mean, for the tooltip: with who says so where a check, a refusal or
    the person's mark has a word ("sees pictures (the listing says it sees; the check said
    blind: the listing stands)")."""
    from routing.capabilities import sight_note  # with the models, after the first paint

    words = {True: "sees pictures", False: "doesn't see pictures", None: "sight unknown"}
    note = sight_note(model)
    parts = [f"{words[model.sees]} ({note})" if note else words[model.sees]]
    if model.tools:
        parts.append("can use tools")
    return parts


MANAGE = "sightline:local-models"  # the last row's "ref": it opens Local models, not a model
MANAGE_LABEL = "Get or remove local models…"


class ModelPicker(QComboBox):
    """A combo box of models; `current_ref()` is what the next turn asks for."""

    manage_requested = Signal()  # the person chose "Get or remove local models…"

    def __init__(self, parent: QWidget | None = None) -> None:
        """A picker with only Auto until models are listed."""
        super().__init__(parent)
        self.setAccessibleName("Model")
        self.setAccessibleDescription("Which model answers; Auto lets Sightline choose")
        self.setToolTip("Which model answers")
        # As wide as the chosen model's whole name (`_fit_icon`), within bounds: a narrow
        # window keeps room for the title, and the bar doesn't jump as models arrive.
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(_MIN_CHARACTERS)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setMaxVisibleItems(20)
        self._items = QStandardItemModel(self)
        self.setModel(self._items)
        self.setItemDelegate(_PickerDelegate(self))
        self.view().setAccessibleName("Models")
        self._models: tuple[ModelInfo, ...] = ()
        self._agents: tuple[tuple[str, bool], ...] = ()  # (id, whether its model is local)
        # What each agent offered when it last ran: (its models, its modes).
        self._offers: dict[str, AgentOffer] = {}
        self._wanted = AUTO  # the ref to show, even before its provider has answered
        self._manage = False  # whether the last row offers Local models (an Ollama is set up)
        self.activated.connect(self._chosen)
        self.currentIndexChanged.connect(self._fit_icon)
        self._rebuild()

    def current_ref(self) -> str:
        """ "auto" or "provider:model"."""
        ref = self.currentData(PickerRole.REF) if self.currentIndex() >= 0 else ""
        if ref == MANAGE:
            return self._wanted
        return ref if isinstance(ref, str) and ref else AUTO

    def set_current_ref(self, ref: str) -> None:
        """Select a model by ref (a conversation's model); "" means Auto."""
        self._wanted = ref or AUTO
        self._select(self._wanted)

    def set_models(self, models: Sequence[ModelInfo]) -> None:
        """Show these models, keeping the selection."""
        if tuple(models) == self._models:
            return
        self._models = tuple(models)
        self._rebuild()

    def models(self) -> tuple[ModelInfo, ...]:
        """The models shown."""
        return self._models

    def set_agents(self, agents: Sequence[tuple[str, bool]]) -> None:
        """Offer these agents, `(id, whether its model runs on this computer)` each."""
        if tuple(agents) == self._agents:
            return
        self._agents = tuple(agents)
        self._rebuild()

    def set_agent_offers(self, offers: dict[str, AgentOffer]) -> None:
        """Offer each agent's models and modes (as it said when it last started) under it."""
        if offers == self._offers:
            return
        self._offers = dict(offers)
        self._rebuild()

    def agents(self) -> tuple[str, ...]:
        """The ids of the agents offered."""
        return tuple(agent for agent, _local in self._agents)

    def is_agent(self, ref: str) -> bool:
        """Whether `ref` names an offered agent (`AGENT[:MODEL][#MODE]`)."""
        return ref_parts(ref)[0] in self.agents()

    def changeEvent(self, event: QEvent) -> None:
        """Redraw the badges in the new colours when the system palette changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._rebuild()

    def offer_manage(self, offered: bool) -> None:
        """Show (or not) the last row that opens Local models."""
        if offered != self._manage:
            self._manage = offered
            self._rebuild()

    def _chosen(self, row: int) -> None:
        if self.itemData(row, PickerRole.REF) == MANAGE:
            self._select(self._wanted)  # the chat keeps its model
            self.manage_requested.emit()
            return
        self._wanted = self.current_ref()
        if self.is_agent(self._wanted):
            self._rebuild()  # the agent's other rows keep the model or mode just chosen

    def _rebuild(self) -> None:
        self.blockSignals(True)
        try:
            self._items.clear()
            auto = _row(AUTO_LABEL, AUTO, header=False)
            auto.setToolTip("Sightline picks a model on this computer, and says which")
            self._items.appendRow(auto)
            local = [m for m in self._models if m.local]
            cloud = [m for m in self._models if not m.local]
            for title, group in ((LOCAL_HEADER, local), (CLOUD_HEADER, cloud)):
                if group:
                    self._items.appendRow(self._header(title))
                    for model in group:
                        self._items.appendRow(self._model_item(model))
            if self._agents or self.is_agent(self._wanted):
                self._add_agents()
            known = {m.ref for m in self._models}
            wanted = self._wanted
            if wanted != AUTO and wanted not in known and not self.is_agent(wanted):
                # Keep the conversation's model in view (not silently Auto) while its
                # provider is away; a turn then says clearly what is wrong.
                self._items.appendRow(self._header(MISSING_HEADER))
                missing = _row(self._wanted, self._wanted, header=False)
                missing.setToolTip(f"{self._wanted} is not offered by any ready provider now")
                self._items.appendRow(missing)
            if self._manage:
                manage = _row(MANAGE_LABEL, MANAGE, header=False)
                manage.setToolTip("Download a model to this computer (Ollama), or remove one")
                self._items.appendRow(manage)
            self._select(self._wanted)
        finally:
            self.blockSignals(False)
        self._fit_icon()
        if self.view().isVisible():  # models arrived while the list is open
            self._fit_list()

    def showPopup(self) -> None:
        """Open the list as wide as its widest row."""
        self._fit_list()
        super().showPopup()

    def _fit_list(self) -> None:
        # Measured as the list opens, not at each rebuild: measuring asks the delegate for
        # each row's size, which builds Qt's item style options (with their enums) before
        # the first paint, where only the closed box shows.
        self.view().setMinimumWidth(self.view().sizeHintForColumn(0) + 24)

    def _add_agents(self) -> None:
        """The "Agents" group: each agent, then the models and modes it offered (each row
        keeps the chat's choice of the other), and the chat's own choice if not among them."""
        self._items.appendRow(self._header(AGENTS_HEADER))
        wanted_agent, wanted_model, wanted_mode = ref_parts(self._wanted)
        for agent_id, runs_here in self._agents:
            self._items.appendRow(_agent_item(agent_id, agent_id, runs_here))
            mine = agent_id == wanted_agent
            offer = self._offers.get(agent_id)  # none until the agent has run
            models, modes = (offer.models, offer.modes) if offer else ((), ())
            model = wanted_model if mine else ""
            mode = wanted_mode if mine else ""
            shown = {agent_id}
            for offered in models:
                ref = agent_ref(agent_id, offered, mode)
                shown.add(ref)
                self._items.appendRow(_agent_item(f"{agent_id} · {offered}", ref, runs_here))
            for offered in modes:
                ref = agent_ref(agent_id, model, offered)
                shown.add(ref)
                label = f"{agent_id} · {offered} mode"
                self._items.appendRow(_agent_item(label, ref, runs_here))
            if mine and self._wanted not in shown:
                mode_said = f"{wanted_mode} mode" if wanted_mode else ""
                said = " · ".join(filter(None, (wanted_model, mode_said)))
                self._items.appendRow(_agent_item(f"{agent_id} · {said}", self._wanted, runs_here))

    def _select(self, ref: str) -> None:
        row = self.findData(ref, PickerRole.REF)
        if row < 0 and ref != AUTO:
            self._rebuild()  # adds the "not listed" entry
            return
        self.setCurrentIndex(max(row, 0))
        self._fit_icon()

    def _fit_icon(self, *_args: object) -> None:
        # The closed box shows only the badges the chosen model has, with no gap.
        item = self._items.item(max(self.currentIndex(), 0))
        badges = 0 if item is None else _badge_count(item)
        self.setIconSize(QSize(max(1, badges * BADGE + (badges - 1) * BADGE_GAP), BADGE))
        # Room for the chosen name whole ("Auto — Sightline chooses", not "…choos…").
        metrics = self.fontMetrics()
        wide = max(1, metrics.horizontalAdvance("X"))
        needed = -(-metrics.horizontalAdvance(self.currentText()) // wide)
        self.setMinimumContentsLength(max(_MIN_CHARACTERS, min(needed, _MAX_CHARACTERS)))

    def _header(self, title: str) -> QStandardItem:
        item = _row(title, "", header=True)
        item.setToolTip(title)
        # Not selectable, not enabled: arrow keys and clicks skip it.
        item.setFlags(Qt.ItemFlag.NoItemFlags)
        item.setAccessibleText(f"{title} (group)")
        return item

    def _model_item(self, model: ModelInfo) -> QStandardItem:
        item = _row(model.label or model.name, model.ref, header=False)
        item.setData(UNKNOWN if model.sees is None else model.sees, PickerRole.SEES)
        item.setData(UNKNOWN if model.tools is None else model.tools, PickerRole.TOOLS)
        item.setData(model.local, PickerRole.LOCAL)
        # The Active group: while the picker waits disabled for its first models,
        # the current group is Disabled and its grey would stick to the icons.
        color = self.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Text)
        item.setIcon(badges_icon(model.sees, model.tools is True, color))
        words = sight_words(model)
        where = "on this computer" if model.local else "in the cloud"
        item.setToolTip(f"{model.ref} — {', '.join(words)}; runs {where}")
        item.setAccessibleText(f"{model.name}, {', '.join(words)}")
        return item


class _PickerDelegate(QStyledItemDelegate):
    """The open list: group titles in small bold type; badges at the right of each model."""

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """Room for the name, two badges, and some air."""
        size = super().sizeHint(option, index)
        return QSize(size.width() + 2 * BADGE + BADGE_GAP + 24, max(size.height(), BADGE + 10))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        """A header, or a model's name with its badges."""
        from PySide6.QtGui import QIcon
        from PySide6.QtWidgets import QStyle, QStyleOptionViewItem  # with the first row drawn

        if index.data(PickerRole.HEADER) is True:
            self._paint_header(painter, option, index)
            return
        plain = QStyleOptionViewItem(option)
        self.initStyleOption(plain, index)
        plain.icon = QIcon()  # badges go at the right, not before the name
        plain.features &= ~QStyleOptionViewItem.ViewItemFeature.HasDecoration
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is None:
            return
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, plain, painter, widget)
        if index.data(PickerRole.REF) in (AUTO, MANAGE):
            return  # Auto is a choice of Sightline's, Local models a dialog: no badges
        if index.data(PickerRole.AGENT) is True:
            return  # an agent says what it sees only once started: the word "agent" says it
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        color = QColor(option.palette.color(role))
        ratio = painter.device().devicePixelRatioF()
        rect = option.rect
        y = rect.y() + (rect.height() - BADGE) // 2
        x = rect.right() - 10 - BADGE
        tools, sees = index.data(PickerRole.TOOLS), index.data(PickerRole.SEES)
        if tools is True:
            painter.drawImage(QPoint(x, y), badge_image("tools", color, BADGE, ratio))
        x -= BADGE + BADGE_GAP
        if sees is True or sees == UNKNOWN:
            faint = QColor(color)
            faint.setAlphaF(1.0 if sees is True else 0.35)
            painter.drawImage(QPoint(x, y), badge_image("eye", faint, BADGE, ratio))

    def _paint_header(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        painter.save()
        font = QFont(option.font)
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 0.85)
        painter.setFont(font)
        muted = option.palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.PlaceholderText)
        painter.setPen(muted)
        text_rect = option.rect.adjusted(8, 4, -8, 0)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter, str(index.data()).upper())
        painter.restore()


def _row(text: str, ref: str, *, header: bool) -> QStandardItem:
    """A picker row with every role set (see PickerRole)."""
    item = QStandardItem(text)
    item.setData(ref, PickerRole.REF)
    item.setData(header, PickerRole.HEADER)
    item.setData(UNKNOWN, PickerRole.SEES)
    item.setData(UNKNOWN, PickerRole.TOOLS)
    item.setData(False, PickerRole.LOCAL)
    item.setData(False, PickerRole.AGENT)
    return item


def _agent_item(label: str, ref: str, local: bool) -> QStandardItem:
    """An agent's row: its name and the word "agent" (no badges: its sight is its own)."""
    item = _row(f"{label} · {AGENT_WORD}", ref, header=False)
    item.setData(True, PickerRole.AGENT)
    item.setData(local, PickerRole.LOCAL)
    where = "on this computer" if local else "off this computer"
    item.setToolTip(
        f"{ref} — an agent: a program that answers with its own tools, in a folder you "
        f"choose; its model runs {where}"
    )
    item.setAccessibleText(f"{label}, agent")
    return item


def _badge_count(item: QStandardItem) -> int:
    # Read from the roles, not the icon: reading an item's icon builds QIcon's enums, and
    # the closed box is sized before the first paint.
    if item.data(PickerRole.HEADER) is True or item.data(PickerRole.REF) in ("", AUTO, MANAGE):
        return 0
    if item.data(PickerRole.AGENT) is True:
        return 0
    sees, tools = item.data(PickerRole.SEES), item.data(PickerRole.TOOLS)
    return int(sees is True or sees == UNKNOWN) + int(tools is True)
