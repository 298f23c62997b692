"""One module per API shape; each turns our transcript into requests and events."""
