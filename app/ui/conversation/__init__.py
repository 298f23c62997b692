"""The open conversation: its model and view, how each kind of row looks, and what a row offers."""
