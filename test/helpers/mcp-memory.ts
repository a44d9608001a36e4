/** An MCP client linked in memory to a server of this process, as the SDK connects one. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

/** Anything with the SDK server's connect(transport): an McpServer, or a service's connection for one access. */
interface Connectable {
  connect(transport: InMemoryTransport): Promise<void>;
}

export async function connectInMemory(server: Connectable): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'ocvector-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}
