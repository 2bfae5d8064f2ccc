import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MCP_CLIENTS, MCP_PROTOCOL_VERSION, mcpEndpoint, mcpSetups, shellQuote } from './mcpSetup';

const URL = 'https://console.example.com/mcp';
const TOKEN = 'qd_abc123.DEF-456';
const BEARER = `Bearer ${TOKEN}`;
const setup = (client: string) => {
  const found = mcpSetups(URL, TOKEN).find((s) => s.client === client);
  if (!found) throw new Error(`no setup for ${client}`);
  return found;
};
/** The server entry `quarterdeck` under `key` of a JSON snippet. */
const server = (client: string, key: string): unknown =>
  (JSON.parse(setup(client).snippet) as Record<string, Record<string, unknown> | undefined>)[key]?.quarterdeck;

/** The words of a shell command, as a POSIX shell splits single-quoted text. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quoted = false;
  const text = command.replaceAll('\\\n', ' ');
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted) {
      if (c === "'") quoted = false;
      else word = (word ?? '') + c;
    } else if (c === "'") {
      quoted = true;
      word ??= '';
    } else if (c === '\\') {
      word = (word ?? '') + text.charAt(++i);
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

describe('mcpEndpoint', () => {
  it('appends /mcp to the base, without doubling slashes', () => {
    expect(mcpEndpoint('https://qd.example.com')).toBe('https://qd.example.com/mcp');
    expect(mcpEndpoint('https://qd.example.com/')).toBe('https://qd.example.com/mcp');
  });
});

describe('shellQuote', () => {
  it('keeps a single quote inside the word', () => {
    expect(shellWords(`echo ${shellQuote("it's")}`)).toEqual(['echo', "it's"]);
  });
});

describe('mcpSetups', () => {
  it('has one setup per client, in tab order, each with instructions', () => {
    const setups = mcpSetups(URL, TOKEN);
    expect(setups.map((s) => s.client)).toEqual([...MCP_CLIENTS]);
    expect(MCP_CLIENTS).toEqual(['Claude Desktop', 'Claude Code', 'VS Code Copilot', 'Cline', 'Continue.dev', 'Zed Editor', 'Direct HTTP']);
    for (const s of setups) {
      expect(s.instructions.length).toBeGreaterThan(20);
      expect(s.snippet).toContain(URL);
      expect(s.snippet).toContain(TOKEN);
    }
  });

  it('Claude Desktop: mcp-remote with the bearer header from the environment', () => {
    expect(server('Claude Desktop', 'mcpServers')).toEqual({
      command: 'npx',
      args: ['-y', 'mcp-remote', URL, '--header', 'Authorization:${QUARTERDECK_AUTH}'],
      env: { QUARTERDECK_AUTH: BEARER },
    });
  });

  it('Claude Code: claude mcp add over HTTP with the header', () => {
    expect(shellWords(setup('Claude Code').snippet)).toEqual([
      'claude',
      'mcp',
      'add',
      '--transport',
      'http',
      'quarterdeck',
      URL,
      '--header',
      `Authorization: ${BEARER}`,
    ]);
  });

  it('VS Code Copilot: an http server in mcp.json', () => {
    expect(server('VS Code Copilot', 'servers')).toEqual({ type: 'http', url: URL, headers: { Authorization: BEARER } });
  });

  it('Cline: a streamable HTTP server', () => {
    expect(server('Cline', 'mcpServers')).toEqual({
      type: 'streamableHttp',
      url: URL,
      headers: { Authorization: BEARER },
      disabled: false,
    });
  });

  it('Continue.dev: a YAML block with a streamable-http server', () => {
    const block = parse(setup('Continue.dev').snippet) as { schema: string; mcpServers: unknown[] };
    expect(block.schema).toBe('v1');
    expect(block.mcpServers).toEqual([
      { name: 'Quarterdeck', type: 'streamable-http', url: URL, requestOptions: { headers: { Authorization: BEARER } } },
    ]);
  });

  it('Zed Editor: a remote context server', () => {
    expect(server('Zed Editor', 'context_servers')).toEqual({ url: URL, headers: { Authorization: BEARER } });
  });

  it('Direct HTTP: curl POSTs a JSON-RPC initialize with the bearer header', () => {
    const words = shellWords(setup('Direct HTTP').snippet);
    expect(words.slice(0, 4)).toEqual(['curl', '-i', '-X', 'POST']);
    expect(words[4]).toBe(URL);
    const headers = words.flatMap((w, i) => (words[i - 1] === '-H' ? [w] : []));
    expect(headers).toEqual([`Authorization: ${BEARER}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream']);
    const body = JSON.parse(words[words.indexOf('-d') + 1] ?? '') as unknown;
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {} },
    });
  });

  it('keeps a token with quotes intact in every format', () => {
    const odd = `a'b"c`;
    const setups = mcpSetups(URL, odd);
    const find = (client: string) => setups.find((s) => s.client === client)?.snippet ?? '';
    expect(JSON.parse(find('Zed Editor'))).toMatchObject({
      context_servers: { quarterdeck: { headers: { Authorization: `Bearer ${odd}` } } },
    });
    expect(parse(find('Continue.dev'))).toMatchObject({
      mcpServers: [{ requestOptions: { headers: { Authorization: `Bearer ${odd}` } } }],
    });
    expect(shellWords(find('Claude Code')).at(-1)).toBe(`Authorization: Bearer ${odd}`);
    expect(shellWords(find('Direct HTTP'))).toContain(`Authorization: Bearer ${odd}`);
  });
});
