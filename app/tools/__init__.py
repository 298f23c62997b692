"""Tools a model may call: built-in ones and those of MCP servers."""
