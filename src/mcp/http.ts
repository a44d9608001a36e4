/**
 * The MCP server over Streamable HTTP, for many agents at once: `POST /mcp`
 * speaks MCP (the SDK's StreamableHTTPServerTransport, stateless: a light
 * MCP server and a transport per request, over the one index the service
 * keeps open), and `GET /health` answers without a token.
 *
 * With tokens, a request to /mcp needs `Authorization: Bearer <token>`,
 * and gets the tools and repositories its token allows. Without tokens the
 * server binds only a loopback address, and accepts only a loopback Host
 * (a web page cannot reach it by DNS rebinding). A body over the size limit
 * gets 413, a body that is not JSON 400, another method 405, another path
 * 404; every error is a JSON body with no stack trace, and the server serves on.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv4, isIPv6, type AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { FULL_ACCESS, type McpAccess } from './access.js';
import { safeLogger } from './log-line.js';
import type { CodebaseMcpService } from './server.js';
import type { TokenTable } from './tokens.js';

const MCP_PATH = '/mcp';
const HEALTH_PATH = '/health';
/** The largest request body read: a tool call is a few hundred bytes. */
const DEFAULT_MAX_BODY_BYTES = 1 << 20;
/** How long close() lets calls under way finish before it cuts their connections. */
const CLOSE_GRACE_MS = 5_000;

export interface McpHttpOptions {
  /** 0 picks a free port (the server's `port` and `url` say which). */
  port: number;
  /** Default 127.0.0.1. Anything but a loopback address needs `tokens`. */
  host?: string;
  /** The tokens accepted; without them every client of the loopback address may do everything. */
  tokens?: TokenTable;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** Shown by /health. */
  version?: string;
  /** One line per refused request and per failure; control characters escaped (log-line.ts). */
  onLog?: (line: string) => void;
}

export interface McpHttpServer {
  /** Where MCP is served: `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening, lets calls under way finish (a few seconds at most), then closes every connection. The service stays open. */
  close(): Promise<void>;
}

/** Whether a host name or address is this machine's loopback: localhost, 127.0.0.0/8, ::1. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return isIPv4(v4) && v4.startsWith('127.');
}

export async function serveMcpOverHttp(service: CodebaseMcpService, options: McpHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!options.tokens && !isLoopback(host))
    throw new RangeError(`${host} is not a loopback address: serving beyond this machine needs tokens`);
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = safeLogger(options.onLog);
  const health = JSON.stringify({ status: 'ok', name: 'ocvector', version: options.version ?? '0.0.0' });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const refuse = (status: number, message: string, headers: Record<string, string> = {}, code = -32000) => {
      log(`${status} ${req.method} ${path} from ${req.socket.remoteAddress}: ${message}`);
      sendError(res, status, message, headers, code);
    };
    if (path === HEALTH_PATH) {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return refuse(405, `${req.method} is not allowed on ${HEALTH_PATH}: use GET`, { Allow: 'GET, HEAD' });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      return void res.end(req.method === 'HEAD' ? undefined : health);
    }
    if (path !== MCP_PATH) return refuse(404, `nothing at ${path}: MCP is served at ${MCP_PATH}`);
    if (!options.tokens && !fromLoopback(req))
      return refuse(403, 'only a loopback Host or Origin may call this server');
    const access = options.tokens ? options.tokens.authenticate(req.headers.authorization) : FULL_ACCESS;
    if (!access) {
      const given = req.headers.authorization !== undefined;
      return refuse(401, given ? 'invalid token' : 'a bearer token is required: send Authorization: Bearer <token>', {
        'WWW-Authenticate': given ? 'Bearer realm="ocvector", error="invalid_token"' : 'Bearer realm="ocvector"',
      });
    }
    if (req.method !== 'POST')
      return refuse(405, `${req.method} is not allowed on ${MCP_PATH}: this server is stateless, POST each message`, {
        Allow: 'POST',
      });
    const body = await readBody(req, limit);
    if (body === undefined) return; // the client went away
    if (body === 'too large') return refuse(413, `the request body is over ${limit} bytes`, { Connection: 'close' });
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch (error) {
      return refuse(400, `Parse error: the body is not JSON (${(error as Error).message})`, {}, -32700);
    }
    await answer(service, access, req, res, message);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`failed ${req.method} ${req.url}: ${(error as Error).message}`);
      if (!res.headersSent) sendError(res, 500, 'internal error', {}, -32603);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => log(`server error: ${error.message}`));
  const address = server.address() as AddressInfo;
  const shownHost = isIPv6(address.address) ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${MCP_PATH}`,
    host: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}

/** One MCP message (or batch) answered by a new MCP server and transport over the shared service. */
async function answer(
  service: CodebaseMcpService,
  access: McpAccess,
  req: IncomingMessage,
  res: ServerResponse,
  message: unknown,
): Promise<void> {
  const mcp = service.connect(access);
  // No sessionIdGenerator: stateless, each request stands alone.
  const transport = new StreamableHTTPServerTransport({});
  // When the answer is sent or the client goes away: end the request's server (aborting a call under way).
  res.once('close', () => {
    transport.close().catch(() => {});
    mcp.close().catch(() => {});
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, message);
}

/** The body, at most `limit` bytes: 'too large' beyond (the rest is read and dropped), undefined if the client left. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too large' | undefined> {
  return new Promise((resolve) => {
    if (Number(req.headers['content-length']) > limit) {
      req.resume();
      return resolve('too large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      resolve('too large');
    };
    req.on('data', onData);
    req.once('end', () => resolve(size <= limit ? Buffer.concat(chunks) : 'too large'));
    req.once('error', () => resolve(undefined));
    req.once('aborted', () => resolve(undefined));
  });
}

/** A JSON-RPC error as the SDK's transport writes its own (no id: it answers the request, not a message in it). */
function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Whether the Host (and Origin, when a browser sends one) name this machine's loopback. */
function fromLoopback(req: IncomingMessage): boolean {
  const hostname = (value: string) => {
    try {
      return new URL(value).hostname;
    } catch {
      return '';
    }
  };
  const host = req.headers.host;
  if (host === undefined || !isLoopback(hostname(`http://${host}`))) return false;
  const origin = req.headers.origin;
  return origin === undefined || isLoopback(hostname(origin));
}
