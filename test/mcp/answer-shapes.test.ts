/**
 * What a newcomer's MCP client meets first, alike across the tools: every tool answers an error as
 * JSON with an `error` sentence (index_status with no index too, not plain text); no listed
 * schema spells a nullable field as a `type` array (the MCP Inspector's --strict flags it); and
 * `oc-vector-mcp <missing dir>` is a usage error, exit 2, as `oc-vector-index <missing dir>` is.
 * In process over the SDK's in-memory transport, but the last, which runs the built CLIs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectInMemory } from '../helpers/mcp-memory.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpAccess } from '../../src/mcp/access.js';
import { createCodebaseMcpService } from '../../src/mcp/server.js';
import { runCli } from '../helpers/run-node.js';

/** A directory with no index in it: every read tool has an error to answer. */
const root = mkdtempSync(join(tmpdir(), 'ocvector-mcp-answers-'));
const service = createCodebaseMcpService({ root, indexer: { embedder: 'builtin', llm: false } });
afterAll(async () => {
  await service.close();
  rmSync(root, { recursive: true, force: true });
});

function connect(access: McpAccess): Promise<Client> {
  return connectInMemory(service.connect(access));
}

/** The `type` arrays in a JSON schema, by path. */
function typeArrays(schema: unknown, path = ''): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const here = Array.isArray((schema as { type?: unknown }).type) ? [path || '(root)'] : [];
  return [
    ...here,
    ...Object.entries(schema).flatMap(([key, value]) => typeArrays(value, path ? `${path}.${key}` : key)),
  ];
}

describe('the MCP tools answer alike', () => {
  it('every tool answers an error as JSON with an `error` sentence, as text and as structured content', async () => {
    const reader = await connect({ name: 'agents', repos: '*', write: false });
    const writer = await connect({ name: 'ci', repos: '*', write: true });
    try {
      const calls: [Client, string, Record<string, unknown>, RegExp][] = [
        [reader, 'index_status', {}, /^there is no index at .* yet: call reindex to build it$/],
        [reader, 'index_status', { verbose: true }, /^index_status takes no arguments \(got verbose\)$/],
        [reader, 'codebase_search', { query: 'retry' }, /^no index at /],
        [reader, 'find_references', { symbol: 'retry' }, /^no index at /],
        [reader, 'find_files_to_change', { issue: 'retry' }, /^no index at /],
        [reader, 'reindex', {}, /^reindex needs a token with write access/],
        [writer, 'reindex', { path: '../..' }, /^path refused: /],
      ];
      for (const [client, name, args, message] of calls) {
        const answer = (await client.callTool({ name, arguments: args })) as {
          isError?: boolean;
          content: { type: string; text: string }[];
          structuredContent?: { error?: unknown };
        };
        expect(answer.isError, name).toBe(true);
        expect(answer.structuredContent?.error, name).toMatch(message);
        expect(JSON.parse(answer.content[0]!.text), name).toEqual(answer.structuredContent);
      }
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('lists no schema with a `type` array: a nullable field is anyOf [type, null]', () => {
    for (const tool of service.tools) {
      expect(typeArrays(tool.inputSchema), `${tool.name} inputSchema`).toEqual([]);
      expect(typeArrays(tool.outputSchema), `${tool.name} outputSchema`).toEqual([]);
    }
  });
});

describe('oc-vector-mcp <a directory that is not there>', () => {
  it('is a usage error, exit 2 and one sentence, as for oc-vector-index', async () => {
    const missing = join(root, 'no-such-dir');
    for (const cli of ['oc-vector-mcp', 'oc-vector-index'] as const) {
      const run = await runCli(cli, [missing, '--no-llm'], { cwd: root, timeout: 20_000 });
      expect(run.code, `${cli}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toBe(`${cli}: ${missing}: no such file or directory\n`);
    }
  });
});
