"""Tests of MCP, one file per module of app/tools/mcp."""
