"""Pictures into words, in one place: for a model that can't see, a model that can describes.

It lives in routing, not vision, because describing is asking a model: who looks
is a catalogue model reached through its wire (`looker`), and a blind model's
request is shaped from the transcript (`request`). vision/ keeps what knows
pictures and PDFs as data, and nothing that knows a model.

- `describer`: one description per picture (SHA-256 LRU, single flight, timeout, usage)
- `framing`: a description framed as untrusted picture content; the notes for a
  picture unavailable, nobody to look, or past the turn's budget; the budget itself
- `request`: a blind model's messages: this turn's pictures described, rendered PDF
  pages transcribed, earlier pictures kept words or a line
- `looker`: a catalogue model asked to describe one picture through its wire
- `prompt`: the describer's instructions (resources/describer_prompt.md)
"""
