"""The models: the picker, and Local models (pulled into Ollama, deleted, the ones that see)."""
