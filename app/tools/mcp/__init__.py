"""MCP: the tools of the person's MCP servers, offered to models as Sightline's own.

One module each: the servers together (`hub`: `McpHub`), the `mcpServers` JSON
(`config`), one server started on first use (`server`), one run of its child and
the task that owns its session (`connection`), the child's pipes (`stdio`), a
server's tool as Sightline's `Tool` (`tool`), results as words and pictures
(`results`), and what goes wrong in words (`errors`).

Nothing is imported here: `config` is read without the MCP SDK, which every other
module loads (half a second), so only the hub's importer decides when it loads.
"""
