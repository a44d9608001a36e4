/**
 * A tool is one object and one registration: a tool defined here, in a test
 * file, and registered by one line is listed (readOnlyHint from its access,
 * after the built-in tools) and answers calls, with no other file touched.
 * In process, over the SDK's in-memory transport.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpTool } from '../../src/mcp/mcp-tool.js';
import { MCP_TOOLS } from '../../src/mcp/registry.js';
import { createMcpServiceServing } from '../../src/mcp/server.js';
import { connectInMemory } from '../helpers/mcp-memory.js';

const echo: McpTool = {
  name: 'echo_root',
  title: 'Echo the root',
  description: 'Answers the root this server serves and the words it was given.',
  inputSchema: { type: 'object', properties: { words: { type: 'string' } }, additionalProperties: false },
  hints: { openWorldHint: false },
  access: 'write',
  async handler({ root }, { log }, args) {
    log(`echo_root ${String(args.words)}`);
    return { content: [{ type: 'text', text: `${root}: ${String(args.words)}` }] };
  },
};

const root = mkdtempSync(join(tmpdir(), 'ocvector-mcp-registration-'));
const lines: string[] = [];
const service = createMcpServiceServing([...MCP_TOOLS, echo], {
  root,
  indexer: { embedder: 'builtin', llm: false },
  onLog: (line) => lines.push(line),
});
afterAll(async () => {
  await service.close();
  rmSync(root, { recursive: true, force: true });
});

describe('registering an MCP tool', () => {
  it('lists a tool registered by one line, after the built-in ones, with readOnlyHint from its access', async () => {
    const client = await connectInMemory(service.connect());
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...MCP_TOOLS.map((tool) => tool.name), 'echo_root']);
      expect(tools.at(-1)).toEqual({
        name: 'echo_root',
        title: 'Echo the root',
        description: 'Answers the root this server serves and the words it was given.',
        inputSchema: echo.inputSchema,
        annotations: { title: 'Echo the root', readOnlyHint: false, openWorldHint: false },
      });
    } finally {
      await client.close();
    }
  });

  it('calls its handler with the shared state and the caller', async () => {
    const client = await connectInMemory(service.connect());
    try {
      lines.length = 0;
      const answer = await client.callTool({ name: 'echo_root', arguments: { words: 'hello' } });
      expect(answer.content).toEqual([{ type: 'text', text: `${root}: hello` }]);
      expect(lines).toEqual(['echo_root hello']);
    } finally {
      await client.close();
    }
  });

  it('keeps a write tool from a read-only token, as it does the built-in ones', async () => {
    const client = await connectInMemory(service.connect({ name: 'agents', repos: '*', write: false }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('echo_root');
      const answer = await client.callTool({ name: 'echo_root', arguments: { words: 'hello' } });
      expect(answer).toMatchObject({ isError: true });
    } finally {
      await client.close();
    }
  });

  it('refuses two tools of one name, saying which', () => {
    expect(() => createMcpServiceServing([...MCP_TOOLS, { ...echo, name: 'reindex' }], { root })).toThrow(
      'two MCP tools are named "reindex": each tool needs a name of its own',
    );
  });
});
