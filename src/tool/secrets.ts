/**
 * Keeps credentials out of what a tool hands to a model. Files that hold
 * secrets are never indexed (files/rules.ts); this is the second line, for
 * keys and passwords written into ordinary source files: a model's context
 * may be logged, sent to a hosted provider, or echoed back to a user.
 */
import { posix } from 'node:path';
import { isSecretName } from '../files/rules.js';

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

/** A quoted literal assigned to a name that says it is secret: the value goes, the name stays. */
const ASSIGNED_SECRET =
  /((?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|token)["']?\s*[:=]\s*)(["'`])([^"'`\s]{8,})\2/gi;

/** `scheme://user:password@host`: the password goes. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)([^\s/@]+)(@)/gi;

/** The text with every credential it recognises replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(ASSIGNED_SECRET, (_, head: string, quote: string) => `${head}${quote}${REDACTED}${quote}`);
  return out.replace(URL_CREDENTIALS, (_, head: string, _password: string, at: string) => `${head}${REDACTED}${at}`);
}

/** A path whose file name marks a credentials file (.env, id_rsa, *.pem...). */
export function isSecretPath(path: string): boolean {
  return isSecretName(posix.basename(path.replace(/\\/g, '/')));
}
