/**
 * Log lines of the MCP server, safe to write where an operator reads them.
 * A caller chooses what it sends (a query, a symbol, a path): written raw,
 * a newline would start a line attributed to another token, an ANSI escape
 * would rewrite the operator's terminal, and a 5 MB query would be a 5 MB
 * line. So every line is one line, with control characters made visible
 * (JSON-style, `\n`, `\u001b`), and a caller's value is shown as a short
 * prefix that says how long the whole was.
 */

/** How much of a caller's value a log line shows. */
const MAX_LOGGED_VALUE = 200;
/** The longest log line written: a line is an event, not a payload. */
const MAX_LOG_LINE = 2_000;

/**
 * C0 and C1 controls, DEL, the Unicode line and paragraph separators, and
 * the bidirectional overrides (which reorder what the operator sees).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to find
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A character made visible: `\n`, `\u001b`. */
function visible(char: string): string {
  return NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` cut to `max` characters, saying how long it was. */
function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** One line for the log: no control character left raw, at most MAX_LOG_LINE characters. Applying it twice changes nothing. */
export function logLine(line: string): string {
  return bounded(line.replace(UNSAFE, visible), MAX_LOG_LINE);
}

/** A logger whose every line goes through logLine, so that no caller of it can forget. */
export function safeLogger(onLog: ((line: string) => void) | undefined): (line: string) => void {
  if (!onLog) return () => {};
  return (line) => onLog(logLine(line));
}

/**
 * A value a caller sent, for a log line: a string quoted and escaped
 * (JSON-style), its first MAX_LOGGED_VALUE characters when longer; anything
 * else by its kind only (never walked: it may be nested 400,000 deep).
 */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = JSON.stringify(value.slice(0, MAX_LOGGED_VALUE)).replace(UNSAFE, visible);
    return value.length <= MAX_LOGGED_VALUE ? shown : `${shown}… (${value.length} characters)`;
  }
  if (value === undefined) return '(none)';
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? '(a list)' : `(${typeof value === 'object' ? 'an object' : typeof value})`;
}
