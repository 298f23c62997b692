"""An agent as an engine: a program speaking the Agent Client Protocol answers the turn.

- `process`: the agent's program, started with the SDK; its stdout read a bounded line
  at a time (a malformed one ends the connection), its stderr into the log
- `client`: Sightline's side of the protocol: updates and permission requests, queued
  for the turn that is running
- `content`: the person's message as prompt blocks; an agent's tool content as parts
- `session`: one running agent for one chat: initialize, a session, its model; errors
  named for what the person does next
- `engine`: `AcpEngine`, the turn: store, prompt, stream updates, approvals, Stop

Nothing is imported here: the SDK loads only when an agent's turn runs.
"""
