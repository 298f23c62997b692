"""`sightline serve`: OpenAI's Chat Completions and Ollama's chat API for other apps on this
computer, each request one turn under Sightline's rules (docs/serving.md).

Nothing here loads before `serve` runs: starlette and uvicorn are imported by the modules
that need them, and the command imports those only when it starts.
"""
