/**
 * Credentials written into ordinary files (files that hold only secrets are
 * never read: rules.ts). Redacted before anything is analysed or stored
 * (signatures, descriptions, documents, the lexical index, model prompts)
 * and again in what a tool answers, whose snippets come from the disk.
 * Redaction keeps every line break, so line numbers stay true.
 */

export const REDACTED = '[redacted]';

/** Tokens whose shape alone says what they are. */
const TOKEN_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g, // GitLab
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, // Slack
  /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{20,}\b/g, // OpenAI, Anthropic, Stripe
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g, // Stripe
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, // JWTs
];

/** `Bearer <token>` or `Basic <credentials>` anywhere (headers, comments, Markdown): the token goes. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/g;

/** A name that says its value is secret, possibly inside a longer name (SECRET_KEY, dbPassword, apiKey). */
const SECRET_NAME =
  '[A-Za-z0-9_$.-]*?(?:password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|credentials?)[A-Za-z0-9_$-]*';
/** Names that contain a secret word but name something else: a token's type, a secret's name, a password field's label. */
const NOT_A_SECRET_NAME =
  /(?:tokeniz|tokens$|(?:type|kind|count|len|length|limit|budget|name|label|url|uri|path|file|field|header|prefix|pattern|regex|env|var|hint|placeholder|policy|min|max)$)/i;

/**
 * A quoted literal assigned to such a name, with an optional type between
 * (`apiKey: string = "…"`, `API_KEY: str = "…"`, `const TOKEN: &str = "…"`),
 * by `=`, `:`, `:=` or `=>`: the value goes, the name stays. A value with
 * spaces is a phrase, not a credential.
 */
const ASSIGNED_SECRET = new RegExp(
  String.raw`\b(${SECRET_NAME})(["']?\s*(?::\s*[&\w.<>\[\]|? ]{1,40}?\s*)?(?::=|=>|==|=|:)\s*)(["'\x60])([^"'\x60\s]{3,})\3`,
  'gi',
);

/** `NAME = value` or `name: value` unquoted, alone on its line (.env-like, YAML, properties files). */
const ASSIGNED_BARE = new RegExp(
  String.raw`^([ \t]*(?:export[ \t]+)?)(${SECRET_NAME})([ \t]*[:=][ \t]*)([^\s"'\x60#(){}\[\];,]{3,})[ \t]*$`,
  'gim',
);

/** `scheme://user:password@host`: the password goes. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)([^\s/@]+)(@)/gi;

/**
 * Whether an unquoted `name = value` line is a credential rather than code:
 * \`=\` only in env and properties style (API_KEY=…, db.password=…), not a
 * Python assignment (token = other_name); and a value that looks like one
 * (a digit, or 8 characters), not a type (token: str) or a constant.
 */
function bareSecret(name: string, between: string, value: string): boolean {
  if (NOT_A_SECRET_NAME.test(name) || value === REDACTED) return false;
  if (between.includes('=') && !/^[A-Z0-9_]+$/.test(name) && !name.includes('.')) return false;
  if (/^(?:true|false|null|none|undefined|\d+)$/i.test(value)) return false;
  return /\d/.test(value) || value.length >= 8;
}

/** The replacement for `matched`: REDACTED, keeping its line breaks. */
function blank(matched: string): string {
  return REDACTED + '\n'.repeat(matched.split('\n').length - 1);
}

/** The text with every credential it recognises replaced by `[redacted]`, line breaks kept. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, blank);
  out = out.replace(AUTH_SCHEME, (_, scheme: string, space: string) => `${scheme}${space}${REDACTED}`);
  out = out.replace(ASSIGNED_SECRET, (whole: string, name: string, between: string, quote: string, value: string) =>
    NOT_A_SECRET_NAME.test(name) || value === REDACTED ? whole : `${name}${between}${quote}${REDACTED}${quote}`,
  );
  out = out.replace(ASSIGNED_BARE, (whole: string, lead: string, name: string, between: string, value: string) =>
    bareSecret(name, between, value) ? `${lead}${name}${between}${REDACTED}` : whole,
  );
  return out.replace(URL_CREDENTIALS, (_, head: string, _password: string, at: string) => `${head}${REDACTED}${at}`);
}
