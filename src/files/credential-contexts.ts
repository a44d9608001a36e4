/**
 * Credentials that their surroundings give away, in shapes neither
 * gitleaks' rules nor the name-and-value rules of redact.ts take: a netrc
 * entry, a command line's password, a connection string's or a URL query's
 * `password=`, an XML element, a PuTTY or SSH2 private key, a base64-encoded
 * PEM key. Each rule names the group that is the secret; the rest of the
 * match stays, to say what was there.
 */
import type { FoundKeywords } from './keyword-scan.js';
import { everyMatch } from './lazy-prefix.js';
import type { SecretSpan } from './secret-rules.js';

interface ContextRule {
  id: string;
  /** A `d` (indices) and `g` regex. */
  pattern: RegExp;
  /** The group that is the secret. */
  secret: number;
  /** Strings in lower case, one of which every match holds: the rule is tried only on a text that holds one, in any case. */
  needs: readonly string[];
  /** Whether the match is a credential, not a reference to one or a placeholder. */
  accept?: (match: RegExpExecArray) => boolean;
}

/**
 * Whether a value written after a password's name is one: not a reference
 * (`$PW`, `${PW}`, `%PW%`, `{0}`, `<password>`, `@PW@`), not a name in capitals
 * (a placeholder), not already redacted; and it has a digit or a symbol.
 */
function passwordLike(value: string): boolean {
  if (value.length < 4 || /^[$%{<@[*]/.test(value)) return false;
  if (/^[A-Z][A-Z0-9_]*$/.test(value) || /^[*xX.•-]+$/.test(value)) return false;
  return /\d/.test(value) || /[!#$%^&*+=/~|?@_.,:-]/.test(value.slice(1));
}

/** Whether a base64 text decodes to the armour of a private key (a Kubernetes secret's tls.key, a kubeconfig). */
function encodedPrivateKey(base64: string): boolean {
  return Buffer.from(base64.slice(0, 64), 'base64').toString('latin1').includes('PRIVATE KEY');
}

const CONTEXT_RULES: readonly ContextRule[] = [
  {
    // An Azure shared access signature: the HMAC of the URL, base64, URL-encoded or not.
    id: 'azure-sas-signature',
    pattern: /[?&]sig=((?:[A-Za-z0-9+/]|%2[BbFf]){40,}(?:=|%3[Dd]){0,2})/dg,
    secret: 1,
    needs: ['sig='],
  },
  {
    id: 'netrc-password',
    pattern: /\bmachine[ \t]+\S+\s+login[ \t]+\S+\s+password[ \t]+(\S+)/dg,
    secret: 1,
    needs: ['machine'],
    accept: (match) => passwordLike(match[1]!),
  },
  {
    id: 'pgpass-line',
    pattern: /^(?:[A-Za-z0-9.-]+|\*):(?:\d+|\*):[^\s:]+:[^\s:]+:([^\s:]+)$/dgm,
    secret: 1,
    needs: [':'],
    accept: (match) => match[1]!.length >= 6 && passwordLike(match[1]!),
  },
  {
    id: 'password-parameter',
    // A password in a URL query, a JDBC URL or a connection string (.NET, ODBC).
    pattern: /[?&;][ \t]*(?:password|passwd|pwd)=([^&;\s"'<>#()]+)/dgi,
    secret: 1,
    needs: ['password=', 'passwd=', 'pwd='],
    accept: (match) => passwordLike(match[1]!),
  },
  {
    // `PGPASSWORD=… pg_dump …`: a variable set for the one command that follows it.
    id: 'environment-before-command',
    pattern:
      /^[ \t]*(?:(?:sudo|env|exec)[ \t]+)?[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PWD|PASS|SECRET|TOKEN|API_KEY)=([^\s"'`$;&|()<>]+)[ \t]+\S/dgm,
    secret: 1,
    needs: ['password=', 'passwd=', 'pwd=', 'pass=', 'secret=', 'token=', 'api_key='],
    accept: (match) => passwordLike(match[1]!),
  },
  {
    // `mysql -pPASSWORD`: the password is joined to the flag.
    id: 'mysql-password-flag',
    pattern: /\bmysql(?:dump|admin|import|check|slap)?\b[^\n]*?[ \t]-p([^\s"'`$-][^\s"'`]*)/dg,
    secret: 1,
    needs: ['mysql'],
    accept: (match) => passwordLike(match[1]!),
  },
  {
    id: 'azure-cli-password',
    pattern: /\baz[ \t]+login\b[^\n]*?[ \t](?:-p|--password)[ \t=]+([^\s"'`]+)/dg,
    secret: 1,
    needs: ['login'],
    accept: (match) => passwordLike(match[1]!),
  },
  {
    // `--client-secret …`, `--password=…`, `--token-value …`: a command line's secret.
    id: 'secret-flag',
    pattern:
      /--(?:[a-z0-9]+-)*(?:password|passwd|secret|token|api-key|apikey|access-key|secret-key)(?:-value)?(?:=|[ \t]+)([^\s"'`$<>{}[\]-][^\s"'`]*)/dg,
    secret: 1,
    needs: ['--'],
    accept: (match) => match[1]!.length >= 6 && passwordLike(match[1]!),
  },
  {
    id: 'xml-secret-element',
    pattern: /<((?:[\w.-]+:)?(?:password|passwd|pwd|secret|token|api[_-]?key|client[_-]?secret))>([^<>\s]+)<\/\1>/dgi,
    secret: 2,
    needs: ['</'],
    accept: (match) => passwordLike(match[2]!),
  },
  {
    // Python's requests and httpx: `auth=("user", "password")`.
    id: 'basic-auth-tuple',
    pattern: /\bauth[ \t]*=[ \t]*\([ \t]*(["'])[^"'\n]*\1[ \t]*,[ \t]*(["'])([^"'\n]+)\2[ \t]*\)/dg,
    secret: 3,
    needs: ['auth'],
    accept: (match) => passwordLike(match[3]!),
  },
  {
    // PuTTY's .ppk: the lines after `Private-Lines: N` are the private key.
    id: 'putty-private-key',
    pattern: /Private-Lines:[ \t]*\d+[ \t]*\r?\n((?:[A-Za-z0-9+/=]+(?:\r?\n|$))*[A-Za-z0-9+/=]+)/dg,
    secret: 1,
    needs: ['private-lines:'],
  },
  {
    // ssh.com's (RFC 4716 armour) private key.
    id: 'ssh2-private-key',
    pattern:
      /---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----[\s\S]*?(?:---- END SSH2 (?:ENCRYPTED )?PRIVATE KEY ----|$)/dg,
    secret: 0,
    needs: ['---- begin ssh2 '],
  },
  {
    // "-----BEGIN …" in base64: a PEM block inside YAML or JSON (Kubernetes' tls.key, kubeconfig's client-key-data).
    id: 'base64-private-key',
    pattern: /\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{16,}={0,2}/dg,
    secret: 0,
    needs: ['ls0tls1crudjti'],
    accept: (match) => encodedPrivateKey(match[0]),
  },
  {
    // A Telegram bot's token, in a `…/bot<token>/` URL too.
    id: 'telegram-bot-token',
    pattern: /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/dg,
    secret: 0,
    needs: [':aa'],
  },
  {
    id: 'google-oauth-client-secret',
    pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/dg,
    secret: 0,
    needs: ['gocspx-'],
  },
];

/** What the rules of this file need a text to hold (see {@link ContextRule.needs}). */
export const CONTEXT_NEEDS: readonly string[] = CONTEXT_RULES.flatMap((rule) => rule.needs);

/** Where the rules of this file find a credential in `text`, which holds the `found` keywords of {@link CONTEXT_NEEDS}. */
export function findContextSecrets(text: string, found: FoundKeywords): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const rule of CONTEXT_RULES) {
    if (!rule.needs.some((need) => found.has(need))) continue;
    for (const match of everyMatch(rule.pattern, text)) {
      const span = match.indices![rule.secret];
      if (!span || span[1] <= span[0] || (rule.accept && !rule.accept(match))) continue;
      spans.push({ start: span[0], end: span[1], rule: rule.id });
    }
  }
  return spans;
}
