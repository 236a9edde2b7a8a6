"""MCP servers: registering one (stdio command or HTTP/SSE URL, secrets sealed), inspecting it (tools, resources,
prompts, a quality report, tool snapshots), its pages and its API. The connection itself is `evalhub.mcp_client`."""
