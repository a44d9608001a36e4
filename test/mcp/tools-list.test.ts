/**
 * What clients list is pinned byte for byte: the tools/list answer (names,
 * titles, descriptions, schemas, annotations, and their order), as the
 * server puts it on the wire for a client with full access and for a
 * read-only token, equals tools-list.expected.json, captured from the server
 * before the MCP tools were moved into one file each (issue 56). A change to
 * what clients see is then a deliberate edit of that file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpAccess } from '../../src/mcp/access.js';
import { createCodebaseMcpService } from '../../src/mcp/server.js';

const EXPECTED = readFileSync(new URL('./tools-list.expected.json', import.meta.url), 'utf8');

const root = mkdtempSync(join(tmpdir(), 'ocvector-mcp-tools-list-'));
const service = createCodebaseMcpService({ root, indexer: { embedder: 'builtin', llm: false } });
afterAll(async () => {
  await service.close();
  rmSync(root, { recursive: true, force: true });
});

const READ_ONLY: McpAccess = { name: 'agents', repos: '*', write: false };

/** The result of tools/list exactly as the server sends it (no client-side schema parsing in between). */
async function toolsListOnTheWire(access?: McpAccess): Promise<unknown> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await service.connect(access).connect(serverSide);
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number') waiting.get(message.id)?.(message);
  };
  const request = (id: number, method: string, params: Record<string, unknown>): Promise<JSONRPCMessage> =>
    new Promise((resolve) => {
      waiting.set(id, resolve);
      void clientSide.send({ jsonrpc: '2.0', id, method, params });
    });
  try {
    await request(1, 'initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'ocvector-test', version: '1.0.0' },
    });
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const answer = await request(2, 'tools/list', {});
    if (!('result' in answer)) throw new Error(`tools/list failed: ${JSON.stringify(answer)}`);
    return answer.result;
  } finally {
    await clientSide.close();
  }
}

describe('tools/list', () => {
  it('lists the same bytes as before, for full access and for a read-only token', async () => {
    const listed = { fullAccess: await toolsListOnTheWire(), readOnly: await toolsListOnTheWire(READ_ONLY) };
    expect(`${JSON.stringify(listed, null, 2)}\n`).toBe(EXPECTED);
  });

  it("the service's tools are what a client with full access lists", () => {
    const { fullAccess } = JSON.parse(EXPECTED) as { fullAccess: { tools: unknown[] } };
    expect(JSON.stringify(service.tools)).toBe(JSON.stringify(fullAccess.tools));
  });
});
