/**
 * What every MCP message is checked for before the SDK sees it. The SDK
 * answers a `tools/call` without params with its schema library's error
 * dump as an internal error (-32603), and a value nested 400,000 deep
 * overflows the stack of whatever walks it next (a log line, a schema
 * check): "Maximum call stack size exceeded", again as -32603. A request
 * that is malformed this way is the caller's mistake: it is answered
 * -32602 (invalid params) with one sentence, before anything recurses into it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isJSONRPCNotification, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/** Nesting allowed in a message's params: the tools' arguments are three levels deep (params, arguments, repos). */
const MAX_PARAMS_DEPTH = 16;

/** Why a request or notification is refused, in one sentence; undefined when it may go on. */
function screenMessage(method: string, params: unknown): string | undefined {
  if (nestedDeeperThan(params, MAX_PARAMS_DEPTH))
    return `invalid params: nested more than ${MAX_PARAMS_DEPTH} levels deep (a tool's arguments are a few levels at most)`;
  if (method !== 'tools/call') return undefined;
  if (!isPlainObject(params))
    return 'invalid params: tools/call needs params with the tool\'s name and arguments: {"name": "codebase_search", "arguments": {...}}';
  if (typeof params.name !== 'string')
    return "invalid params: tools/call needs the tool's name as a string (params.name)";
  if (params.arguments !== undefined && !isPlainObject(params.arguments))
    return "invalid params: a tool's arguments must be an object of named values (params.arguments)";
  return undefined;
}

/** Whether `value` holds objects or lists nested more than `limit` deep; walked without recursion, and no further than the limit. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An McpServer whose transports screen each message first: a refused
 * request is answered -32602 on the same transport (its id kept), a refused
 * notification is dropped; either way one line is logged.
 */
export class ScreenedMcpServer extends McpServer {
  readonly #log: (line: string) => void;

  constructor(info: ConstructorParameters<typeof McpServer>[0], log: (line: string) => void) {
    super(info, { capabilities: { tools: {} } });
    this.#log = log;
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    // The SDK has just set onmessage; messages arrive only after this turn, so none passes unscreened.
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) return deliver?.(message, extra);
      const reason = screenMessage(message.method, message.params);
      if (reason === undefined) return deliver?.(message, extra);
      this.#log(`refused ${message.method.slice(0, 100)}: ${reason}`);
      if (isJSONRPCRequest(message))
        transport
          .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: reason } })
          .catch(() => {});
    };
  }
}
