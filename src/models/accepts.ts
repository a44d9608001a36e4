/**
 * A first look at a model server before its client is loaded: whether anything accepts a TCP
 * connection where it should be.
 */
import { connect } from 'node:net';

/**
 * Whether something accepts a connection at the host and port of `url` within `timeoutMs`. A
 * user with no model server (the default) is told by a refused connection, without loading
 * the Ollama client and Node's fetch, which took most of that answer's time (docs/performance.md,
 * "The figures behind the constants").
 * A URL that cannot be parsed is not judged here (true): the client reports it.
 */
export function accepts(url: string, timeoutMs: number): Promise<boolean> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.resolve(true);
  }
  const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => done(false), timeoutMs);
    function done(accepted: boolean): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(accepted);
    }
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
