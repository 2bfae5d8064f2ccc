/** MCP client setup (decision 96): per client, how to point it at the
 * console's `/mcp` endpoint with an access token as a bearer header. */

export const MCP_CLIENTS = [
  'Claude Desktop',
  'Claude Code',
  'VS Code Copilot',
  'Cline',
  'Continue.dev',
  'Zed Editor',
  'Direct HTTP',
] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** The key the server is registered under in each client's configuration. */
export const MCP_SERVER_NAME = 'quarterdeck';
/** The protocol revision the Direct HTTP example asks for; the server answers with the one it speaks. */
export const MCP_PROTOCOL_VERSION = '2025-06-18';

export interface McpClientSetup {
  client: McpClient;
  /** Where the snippet goes and what to do after. */
  instructions: string;
  language: 'json' | 'yaml' | 'shell';
  snippet: string;
}

/** The MCP endpoint under the console's base URL. */
export function mcpEndpoint(base: string): string {
  return `${base.replace(/\/+$/, '')}/mcp`;
}

/** A single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function claudeDesktop(url: string, token: string): string {
  // Claude Desktop's configuration file only starts local servers, so the
  // mcp-remote bridge carries the requests; the header value comes from the
  // environment because some platforms split arguments on spaces.
  return json({
    mcpServers: {
      [MCP_SERVER_NAME]: {
        command: 'npx',
        args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${QUARTERDECK_AUTH}'],
        env: { QUARTERDECK_AUTH: `Bearer ${token}` },
      },
    },
  });
}

export function claudeCode(url: string, token: string): string {
  return `claude mcp add --transport http ${MCP_SERVER_NAME} ${shellQuote(url)} --header ${shellQuote(`Authorization: Bearer ${token}`)}`;
}

export function vsCodeCopilot(url: string, token: string): string {
  return json({ servers: { [MCP_SERVER_NAME]: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } });
}

export function cline(url: string, token: string): string {
  return json({
    mcpServers: {
      [MCP_SERVER_NAME]: { type: 'streamableHttp', url, headers: { Authorization: `Bearer ${token}` }, disabled: false },
    },
  });
}

/** A double-quoted YAML scalar (JSON strings are valid YAML). */
const yamlString = (text: string) => JSON.stringify(text);

export function continueDev(url: string, token: string): string {
  return [
    'name: Quarterdeck',
    'version: 0.0.1',
    'schema: v1',
    'mcpServers:',
    '  - name: Quarterdeck',
    '    type: streamable-http',
    `    url: ${yamlString(url)}`,
    '    requestOptions:',
    '      headers:',
    `        Authorization: ${yamlString(`Bearer ${token}`)}`,
    '',
  ].join('\n');
}

export function zed(url: string, token: string): string {
  return json({ context_servers: { [MCP_SERVER_NAME]: { url, headers: { Authorization: `Bearer ${token}` } } } });
}

/** The JSON-RPC initialize request every MCP session starts with. */
export function initializeRequest(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'curl', version: '1.0' } },
  });
}

export function directHttp(url: string, token: string): string {
  return [
    `curl -i -X POST ${shellQuote(url)} \\`,
    `  -H ${shellQuote(`Authorization: Bearer ${token}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H 'Accept: application/json, text/event-stream' \\`,
    `  -d ${shellQuote(initializeRequest())}`,
  ].join('\n');
}

/** Every client's setup for this endpoint and token, in tab order. */
export function mcpSetups(url: string, token: string): McpClientSetup[] {
  return [
    {
      client: 'Claude Desktop',
      instructions:
        'Open Settings, Developer, Edit Config and add this to claude_desktop_config.json, then restart Claude Desktop. It needs Node.js: the mcp-remote bridge sends the requests.',
      language: 'json',
      snippet: claudeDesktop(url, token),
    },
    {
      client: 'Claude Code',
      instructions: 'Run this in a terminal, then check the connection with /mcp inside Claude Code.',
      language: 'shell',
      snippet: claudeCode(url, token),
    },
    {
      client: 'VS Code Copilot',
      instructions:
        'Save this as .vscode/mcp.json in your workspace (or run MCP: Open User Configuration), then start the server and use it in Copilot Chat agent mode.',
      language: 'json',
      snippet: vsCodeCopilot(url, token),
    },
    {
      client: 'Cline',
      instructions: 'In Cline, open MCP Servers, Configure, Configure MCP Servers and add this to cline_mcp_settings.json.',
      language: 'json',
      snippet: cline(url, token),
    },
    {
      client: 'Continue.dev',
      instructions: 'Save this as .continue/mcpServers/quarterdeck.yaml in your workspace; MCP tools are used in agent mode.',
      language: 'yaml',
      snippet: continueDev(url, token),
    },
    {
      client: 'Zed Editor',
      instructions: 'Run zed: open settings file and add this to settings.json; the server shows in the Agent Panel settings.',
      language: 'json',
      snippet: zed(url, token),
    },
    {
      client: 'Direct HTTP',
      instructions:
        'Start a session with an initialize request. Send the Mcp-Session-Id response header, the bearer header and the MCP-Protocol-Version header with every later request (tools/list, tools/call).',
      language: 'shell',
      snippet: directHttp(url, token),
    },
  ];
}
