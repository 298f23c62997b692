"""The data ledger's fixed words: its title, which also names the top bar's button that
opens it, and what it says with no chat open. Apart from the panel (app/ui/ledger_panel.py)
so the button is named without loading the panel, which is made when first opened."""

TITLE = "Where your data went"
NO_CHAT = "Open a conversation to see where its data went. A new chat has sent nothing yet."
