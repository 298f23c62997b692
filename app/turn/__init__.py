"""One turn of a conversation, answered by a model through its wire.

- `runner`: the turn itself: store the person's message, choose who answers, stream,
  run tool steps, heal after a refusal, end with `TurnEnded`
- `events`: what a turn reports as it goes (the window and `sightline ask` consume them)
- `tool_step`: one step of tool calls: the person's approval, then the allowed ones run
- `sight`: pictures in a turn: as pictures or as words, who looks, takeover, heal, and the
  disclosure and budget notices
- `boundary`: a chat's pictures and PDFs that have stayed on this computer, and their
  first crossing

Nothing is imported here: the window loads `boundary` before its first paint, and
the rest (asyncio, the wires) only when a turn runs.
"""
