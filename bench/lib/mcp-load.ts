/** Concurrent MCP clients asking codebase_search over Streamable HTTP, for the server benchmarks. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface ClientLoad {
  latencies: number[];
  errors: number;
  wallMs: number;
}

/**
 * `clients` clients connected at once, each asking every query (from its own
 * offset, so the load grows with the clients) one after another. The wall
 * time counts from when all are connected.
 */
export async function askConcurrently(
  url: string,
  queries: readonly string[],
  clients: number,
  headers: Record<string, string> = {},
): Promise<ClientLoad> {
  const connected = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new Client({ name: 'ocvector-bench', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      return client;
    }),
  );
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    connected.map(async (client, c) => {
      for (let i = 0; i < queries.length; i++) {
        const query = queries[(i + c * 7) % queries.length]!;
        const t = performance.now();
        try {
          const result = await client.callTool({ name: 'codebase_search', arguments: { query, k: 10 } });
          if (result.isError || (result.structuredContent as { error?: string } | undefined)?.error) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wallMs = performance.now() - started;
  await Promise.all(connected.map((client) => client.close()));
  return { latencies, errors, wallMs };
}
