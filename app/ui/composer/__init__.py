"""Where the person writes: the composer, its attachments and their cards, a locked PDF's
password, and the card that asks whether a tool may run."""
