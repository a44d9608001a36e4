/**
 * The MCP tools' registry decides what a client lists and may call, from
 * each tool's access alone: every tool whose access is 'write' is neither
 * listed to nor run for a read-only token, and every tool whose access is
 * 'read' is. In process, over the SDK's in-memory transport.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectInMemory } from '../helpers/mcp-memory.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpAccess } from '../../src/mcp/access.js';
import { MCP_TOOLS } from '../../src/mcp/registry.js';
import { createCodebaseMcpService } from '../../src/mcp/server.js';

const root = mkdtempSync(join(tmpdir(), 'ocvector-mcp-registry-'));
const lines: string[] = [];
const service = createCodebaseMcpService({
  root,
  indexer: { embedder: 'builtin', llm: false },
  onLog: (line) => lines.push(line),
});
afterAll(async () => {
  await service.close();
  rmSync(root, { recursive: true, force: true });
});

const READER: McpAccess = { name: 'agents', repos: '*', write: false };
const WRITER: McpAccess = { name: 'ci', repos: '*', write: true };

function connect(access: McpAccess): Promise<Client> {
  return connectInMemory(service.connect(access));
}

/** Each registered tool with its name and its access, as the service lists it. */
const tools = MCP_TOOLS.map((tool, i) => ({ name: service.tools[i]!.name, access: tool.access }));

describe('the MCP tools registry', () => {
  it('has a tool that writes and tools that read, each listed with readOnlyHint from its access', () => {
    expect(tools.filter((tool) => tool.access === 'write').length).toBeGreaterThan(0);
    expect(tools.filter((tool) => tool.access === 'read').length).toBeGreaterThan(0);
    for (const [i, tool] of tools.entries())
      expect(service.tools[i]!.annotations?.readOnlyHint, tool.name).toBe(tool.access === 'read');
  });

  it.each(tools)('$name ($access): a read-only token lists and calls it only when it reads', async (tool) => {
    const reader = await connect(READER);
    try {
      const listed = (await reader.listTools()).tools.map((listedTool) => listedTool.name);
      expect(listed.includes(tool.name)).toBe(tool.access === 'read');
      lines.length = 0;
      const answer = (await reader.callTool({ name: tool.name, arguments: {} })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      const refusal = `${tool.name} needs a token with write access; the token "agents" may only search`;
      if (tool.access === 'write') {
        expect(answer).toMatchObject({ isError: true, structuredContent: { error: refusal } });
        expect(lines).toEqual([`agents: ${tool.name} refused to agents`]);
      } else {
        // It ran (with no index here, it may well answer with an error of its own), and was not refused.
        expect(answer.content[0]?.text).not.toContain(refusal);
        expect(lines.some((line) => line.includes('refused'))).toBe(false);
      }
    } finally {
      await reader.close();
    }
  });

  it.each(tools.filter((tool) => tool.access === 'write'))(
    '$name: a token that may write lists it and is not refused',
    async (tool) => {
      const writer = await connect(WRITER);
      try {
        expect((await writer.listTools()).tools.map((listedTool) => listedTool.name)).toContain(tool.name);
        lines.length = 0;
        const answer = (await writer.callTool({ name: tool.name, arguments: {} })) as { content: { text: string }[] };
        expect(answer.content[0]?.text).not.toMatch(/needs a token with write access/);
        expect(lines.some((line) => line.includes('refused'))).toBe(false);
      } finally {
        await writer.close();
      }
    },
    30_000,
  );
});
