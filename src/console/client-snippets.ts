// How to connect an MCP client with a token just issued, for the console's
// "shown only now" card: the configuration each common client reads, filled in
// with the service's URL and the token, ready to paste (README, "Connect").
interface ClientSnippet {
  id: string;
  title: string;
  /** Where the text goes. */
  where: string;
  text: string;
}

export function clientSnippets(mcpUrl: string, token: string): ClientSnippet[] {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      id: "claude-code",
      title: "Claude Code",
      where: "Run in a terminal:",
      text: `claude mcp add --transport http agent-memory ${mcpUrl} --header "Authorization: Bearer ${token}"`,
    },
    {
      id: "claude-desktop",
      title: "Claude Desktop",
      where: "In claude_desktop_config.json (Desktop speaks stdio; the mcp-remote bridge forwards to the service), then restart Desktop:",
      text: json({
        mcpServers: {
          "agent-memory": {
            command: "npx",
            // No space after the colon: some launchers split arguments on spaces; the token travels in env.
            args: ["-y", "mcp-remote", mcpUrl, "--header", "Authorization:${AGENT_MEMORY_AUTH}"],
            env: { AGENT_MEMORY_AUTH: `Bearer ${token}` },
          },
        },
      }),
    },
    {
      id: "vscode",
      title: "VS Code",
      where: "In .vscode/mcp.json (a workspace) or the user's mcp.json:",
      text: json({ servers: { "agent-memory": { type: "http", url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } }),
    },
    {
      id: "cursor",
      title: "Cursor",
      where: "In ~/.cursor/mcp.json (or .cursor/mcp.json in a project):",
      text: json({ mcpServers: { "agent-memory": { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } }),
    },
    {
      id: "any",
      title: "Any MCP client",
      where: "Streamable HTTP transport:",
      text: `URL:    ${mcpUrl}\nHeader: Authorization: Bearer ${token}`,
    },
  ];
}
