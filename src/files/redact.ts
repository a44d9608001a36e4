/**
 * Credentials written into ordinary files (files that hold only secrets are
 * never read: rules.ts). Redacted before anything is analysed or stored
 * (signatures, descriptions, documents, the lexical index, model prompts)
 * and again in what a tool answers, whose snippets come from the disk.
 * Redaction keeps every line break, so line numbers stay true.
 */

import { CONTEXT_NEEDS, findContextSecrets } from './credential-contexts.js';
import { type FoundKeywords, KeywordScanner } from './keyword-scan.js';
import { type LazyPrefixRegex, lazyPrefixMatches, replaceMatches, wordOrDotOrDash } from './lazy-prefix.js';
import { findRuleSecrets, gitleaksRules, type SecretSpan, shannonEntropy } from './secret-rules.js';

export const REDACTED = '[redacted]';

/**
 * An armoured private key, whatever its kind (`PRIVATE KEY`, `RSA PRIVATE
 * KEY`, `OPENSSH PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, `PGP PRIVATE KEY
 * BLOCK`), with its armour headers (`Version:`, `Comment:`) and body. A block
 * whose END line is missing (cut, or pasted in part) goes to the end of the
 * text: a key's body has no other end a pattern could find.
 */
const PRIVATE_KEY_BLOCK =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g;

/**
 * Tokens whose shape alone says what they are. A pattern with `needs` (lower
 * case) is tried only on a text that holds that string, in any case: a
 * look-behind is tried at every position of the text, and most texts hold no
 * webhook.
 */
const TOKEN_PATTERNS: readonly { pattern: RegExp; needs?: string }[] = [
  { pattern: PRIVATE_KEY_BLOCK },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g }, // AWS access key ids
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g }, // GitHub tokens
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g }, // GitLab
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g }, // Slack
  // Webhook URLs, whose path is the credential: the host stays, to say what it was.
  {
    pattern: /(?<=\bhttps?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]+/g,
    needs: '://hooks.slack.com/',
  },
  {
    pattern: /(?<=\bhttps?:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/api\/webhooks\/)\d+\/[A-Za-z0-9_-]+/g,
    needs: '.com/api/webhooks/',
  },
  { pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{20,}/g }, // Vault service, batch and recovery tokens (the legacy `s.` is too common a prefix)
  { pattern: /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{20,}\b/g }, // OpenAI, Anthropic, Stripe
  { pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g }, // Stripe
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g }, // Google API keys
  { pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g }, // JWTs
];

/** `Bearer <token>` or `Basic <credentials>` anywhere (headers, comments, Markdown): the token goes. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/g;

/**
 * A name that says its value is secret, possibly inside a longer name
 * (SECRET_KEY, dbPassword, apiKey, kubeconfig's client-key-data). `pass`
 * and `pw` match here inside any name; {@link namesASecret} keeps them only
 * as the name's last word.
 */
const SECRET_NAME_START = '[A-Za-z0-9_$.-]*?';
const SECRET_NAME_REST =
  '(?:pass|pwd?|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?key[_-]?data|token|credentials?)[A-Za-z0-9_$-]*';
const SECRET_NAME = SECRET_NAME_START + SECRET_NAME_REST;
/** The secret words that count anywhere in a name: password, passwd, passphrase, pwd and the rest of {@link SECRET_NAME}. */
const SECRET_WORD =
  /passw(?:or)?d|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?key[_-]?data|token|credential/i;
/** Names that contain a secret word but name something else: a token's type, a secret's name, a password field's label. */
const NOT_A_SECRET_NAME =
  /(?:tokeniz|tokens$|(?:type|kind|count|len|length|limit|budget|name|label|url|uri|path|file|field|header|prefix|pattern|regex|env|var|variable|hint|placeholder|policy|min|max)$)/i;

/**
 * Whether a name matched by {@link SECRET_NAME} names a secret. `pass` is a
 * password only as the name's last word (`dbPass`, `DB_PASS`, `smtp-pass`,
 * `pass`): first or alone inside a word it is the verb or another word
 * (`passThrough`, `pass_env`, `passes`, `bypass`, `compass`). So is `pw`,
 * after another word (`admin_pw`, `dbPw`; not `pw` alone, `pwm`, `hpw`).
 */
function namesASecret(name: string): boolean {
  if (NOT_A_SECRET_NAME.test(name)) return false;
  if (SECRET_WORD.test(name)) return true;
  const words = name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  const last = words.at(-1)?.toLowerCase();
  return last === 'pass' || (last === 'pw' && words.length > 1);
}

/** Whether a character code is of `[A-Za-z0-9_$.-]`, the start of {@link SECRET_NAME}. */
function nameCharacter(code: number): boolean {
  return code === 36 || wordOrDotOrDash(code);
}

/**
 * A quoted literal assigned to such a name, with an optional type between
 * (`apiKey: string = "…"`, `API_KEY: str = "…"`, `const TOKEN: &str = "…"`),
 * by `=`, `:`, `:=` or `=>`: the value goes, the name stays. A value with
 * spaces is a phrase, not a credential.
 */
const ASSIGNED_BETWEEN = String.raw`(["']?\s*(?::\s*[&\w.<>\[\]|? ]{1,40}?\s*)?(?::=|=>|==|=|:)\s*)`;
/** Searched from its core, without the name's lazy start (lazy-prefix.ts): the same matches. */
const ASSIGNED_SECRET: LazyPrefixRegex = {
  core: new RegExp(String.raw`${SECRET_NAME_REST}${ASSIGNED_BETWEEN}(["'\x60])([^"'\x60\s]{3,})\2`, 'gi'),
  anchored: new RegExp(String.raw`\b(${SECRET_NAME})${ASSIGNED_BETWEEN}(["'\x60])([^"'\x60\s]{3,})\3`, 'iy'),
  inRun: nameCharacter,
  reach: Number.POSITIVE_INFINITY,
  wordBoundary: true,
};

/** `NAME = value` or `name: value` unquoted, alone on its line (.env-like, YAML, properties files). */
const ASSIGNED_BARE = new RegExp(
  String.raw`^([ \t]*(?:export[ \t]+)?)(${SECRET_NAME})([ \t]*[:=][ \t]*)([^\s"'\x60#(){}\[\];,]{3,})[ \t]*$`,
  'gim',
);

/**
 * `scheme://user:password@host`, `redis://:password@host`: the password goes.
 * It ends at the authority's last `@`, as URL parsers read it, so a password
 * holding an `@` goes whole.
 */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s/?#"'\x60]+)(@)/gi;

/**
 * Whether an unquoted `name = value` line is a credential rather than code:
 * \`=\` only in env and properties style (API_KEY=…, db.password=…), not a
 * Python assignment (token = other_name); and a value that looks like one
 * (a digit, or 8 characters), not a type (token: str) or a constant.
 */
function bareSecret(name: string, between: string, value: string): boolean {
  if (!namesASecret(name) || value === REDACTED) return false;
  if (between.includes('=') && !/^[A-Z0-9_]+$/.test(name) && !name.includes('.')) return false;
  if (/^(?:true|false|null|none|undefined|\d+)$/i.test(value)) return false;
  return /\d/.test(value) || value.length >= 8;
}

/**
 * A credential named in prose or a comment, unquoted: "the database password:
 * hunter2-long", "the admin password for staging is s3cr3t!", "API key:
 * AbC123xyz". The name is a separate word (names inside identifiers are the
 * assignment rules' business), optionally followed by a short "for …"
 * phrase, then `:` and a space, or "is"/"was". Whether the value is a
 * credential, not a word, is decided by {@link proseCredential}.
 */
const PROSE_CREDENTIAL =
  /\b((?:pass(?:word|wd|phrase)|secret(?:[ _-]?key)?|(?:access|auth|api|bearer|refresh)[ _-]?(?:token|key)|token|private[ _-]?key|client[ _-]?secret)s?)((?:\s+(?:for|of|on|to)(?:\s+[\w.-]+){1,3}?)?(?::[ \t]+|\s+(?:is|was)\s+))([\x60"']?)([^\s\x60"'<>,;&]{6,128})\3(?=[\s.,;:!?)]|$)/gi;

/**
 * Whether the word after "password:" or "token is" is a credential: it has a
 * digit or a symbol inside, and is not a reference to one (an environment
 * variable, `config.secret`, a placeholder, a type such as Uint8Array, a
 * colour) or an ordinary (perhaps hyphenated) word: "the token is
 * refreshed", "password: string", "token was position-only" stay.
 */
function proseCredential(value: string): boolean {
  if (value.length < 6 || value === REDACTED) return false;
  if (/^[[{(<$%@#]/.test(value) || /[()[\]{}]/.test(value)) return false; // placeholders, calls, templates, colours
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false; // config.secret, process.env.TOKEN
  if (/^[A-Z][A-Z0-9_]*$/.test(value)) return false; // an environment variable's name
  if (/^(?:[A-Z][a-z]*\d*)+$/.test(value)) return false; // a type or a class: Uint8Array, Buffer
  if (/^[*xX.•-]+$/.test(value)) return false; // already masked
  if (/^(?:https?:\/\/|\.{0,2}\/)/i.test(value)) return false; // a link or a path
  if (/password|passwd|secret|token|key/i.test(value)) return false; // names another secret
  return /\d/.test(value) || /[!@#$%^*+=/~|?]/.test(value.slice(1, -1));
}

/** The punctuation that ends a sentence after a value, kept out of it: "… is s3cr3t-Pa55." */
const TRAILING_PUNCTUATION = /[.,;:!?)]+$/;

/**
 * A quoted literal that may be a credential with no name to give it away
 * (`plainBlob = "…"`): 20 to 256 characters of the alphabets tokens are
 * written in, no spaces. Whether it is random is {@link looksRandom}'s call.
 */
const RANDOM_LITERAL = /(["'\x60])(?<![\w\\]["'\x60])([A-Za-z0-9+/=_.~-]{20,256})\1/g;

/**
 * Bits per character below which a literal is not random enough to be a key.
 * Random base62 of 20 characters averages about 4.0, and every generated
 * token measured here was above 3.6; dotted names and paths reach 4 too, so
 * entropy alone is not the test (see {@link randomPart}).
 */
const MIN_LITERAL_ENTROPY = 3.5;
/** The shortest run between separators that can carry a key by itself (a 12-character run of base62 is 71 bits). */
const MIN_RANDOM_PART = 12;
/**
 * Hex runs are hashes and ids far more often than keys (a commit, a digest,
 * an AWS resource id of 17): they count from 20 characters (80 bits).
 */
const MIN_HEX_PART = 20;

/**
 * The share of `part` made of word-like runs (split at case changes and
 * digits; 4+ letters with a vowel and no 5 consonants in a row, or a third of
 * them vowels, as in English): high for identifiers (ES2015StringPrototype,
 * listroute53healthchecks), low for keys (q8Zr3KfP0aLm9XwT).
 */
function wordiness(part: string): number {
  let wordy = 0;
  for (const run of part.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g) ?? []) {
    if (!/^[A-Za-z]{4,}$/.test(run)) continue;
    const vowels = run.replace(/[^aeiouy]/gi, '').length;
    if ((vowels > 0 && !/[^aeiouy]{5}/i.test(run)) || vowels / run.length >= 0.3) wordy += run.length;
  }
  return wordy / part.length;
}

/** The share of `part` in runs of 3+ consecutive characters (abcdef, 0123456789): alphabets and placeholders, not keys. */
function sequential(part: string): number {
  let inRuns = 0;
  let run = 1;
  for (let i = 1; i <= part.length; i++) {
    if (i < part.length && part.charCodeAt(i) === part.charCodeAt(i - 1) + 1) {
      run++;
      continue;
    }
    if (run >= 3) inRuns += run;
    run = 1;
  }
  return inRuns / part.length;
}

/**
 * A part of the literal, between separators (`_ - . / ~ + =`), that looks
 * generated: long enough, letters mixed with digits,
 * not mostly words or runs (abcdef, 0123), not a short hex run.
 */
function randomPart(literal: string): string | undefined {
  return literal.split(/[_\-./~+=]+/).find((part) => {
    if (part.length < MIN_RANDOM_PART) return false;
    if (/^[0-9a-f]+$/i.test(part) && part.length < MIN_HEX_PART) return false;
    // Letters and digits mixed: a random base62 key of 24+ characters has a digit 99% of the time.
    const digits = part.replace(/\D/g, '').length;
    const mixed = part.length - digits >= 2 && (digits >= 2 || (digits >= 1 && part.length >= 24));
    return mixed && wordiness(part) + sequential(part) < 0.5;
  });
}

/**
 * Whether a quoted literal looks like a generated secret. What a user expects
 * to keep is left alone, even when it is random: hex strings and UUIDs
 * (digests, commit ids, the bulk of a lockfile or a test), subresource
 * integrity (sha512-…), hex numbers, documentation's stand-ins, paths, file
 * and host names (./chunk-Bnu9O96Y.js), identifiers and dotted names,
 * alphabets. What is still taken: random ids, certificate pins and base64
 * test vectors, which no rule can tell from a key.
 */
export function looksRandom(literal: string): boolean {
  if (/^[0-9a-f-]+$/i.test(literal)) return false; // hex, UUIDs
  if (/^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/i.test(literal)) return false; // UUID-shaped ids
  if (/^(?:sha(?:1|224|256|384|512)|md5)-/i.test(literal)) return false; // subresource integrity
  if (/^0x[0-9a-f.]+(?:p[+-]?\d+)?$/i.test(literal)) return false; // hex numbers and floats
  if (/example|sample|dummy|placeholder|fake/i.test(literal)) return false; // AIDGPMS9RO4H3FEXAMPLE
  if (/^\.{0,2}\//.test(literal) || /\w\.[a-z][a-z0-9]{0,4}\.?$/i.test(literal)) return false; // paths, files, hosts
  if (shannonEntropy(literal) < MIN_LITERAL_ENTROPY) return false;
  return randomPart(literal) !== undefined;
}

/** The replacement for `matched`: REDACTED, keeping its line breaks. */
function blank(matched: string): string {
  return REDACTED + '\n'.repeat(matched.split('\n').length - 1);
}

/**
 * The text with every credential it recognises replaced by `[redacted]`,
 * line breaks kept: first what gitleaks' rules find (secret-rules.ts), then
 * what the rules of this file find in what is left.
 */
export function redactSecrets(text: string): string {
  const found = keywordScanner().scan(text);
  return redactHandKept(redactSpans(text, findRuleSecrets(text, gitleaksRules(), 'indexed', found)), found);
}

/** What the rules of this file need a text to hold, in lower case (see TOKEN_PATTERNS and credential-contexts.ts). */
const HAND_KEPT_NEEDS: readonly string[] = [
  ...TOKEN_PATTERNS.flatMap(({ needs }) => (needs === undefined ? [] : [needs])),
  ...CONTEXT_NEEDS,
  '://',
];

let scanner: KeywordScanner | undefined;

/**
 * One scanner for the keywords of gitleaks' rules and the strings the rules
 * of this file need, so that a text is read once to find them all.
 */
function keywordScanner(): KeywordScanner {
  scanner ??= new KeywordScanner([...gitleaksRules().keywords, ...HAND_KEPT_NEEDS]);
  return scanner;
}

/** The text with each span replaced by `[redacted]` (overlapping spans as one), line breaks kept. */
export function redactSpans(text: string, spans: readonly SecretSpan[]): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (let i = 0; i < sorted.length; i++) {
    const start = Math.max(at, sorted[i]!.start);
    let end = sorted[i]!.end;
    while (i + 1 < sorted.length && sorted[i + 1]!.start < end) end = Math.max(end, sorted[++i]!.end);
    if (end <= start) continue;
    out += text.slice(at, start) + blank(text.slice(start, end));
    at = end;
  }
  return out + text.slice(at);
}

/**
 * What the rules of this file alone redact (bench/secret-rules.ts measures
 * them apart). `found`: the keywords of the text before gitleaks' rules
 * redacted it; what the text holds after is among them, as no need holds a
 * character of `[redacted]`'s brackets.
 */
export function redactHandKept(text: string, found: FoundKeywords = keywordScanner().scan(text)): string {
  let out = redactSpans(text, findContextSecrets(text, found));
  for (const { pattern, needs } of TOKEN_PATTERNS) {
    if (needs === undefined || found.has(needs)) out = out.replace(pattern, blank);
  }
  // An ordinary lower-case word after the scheme is prose ("Basic authentication", "Token characters").
  out = out.replace(AUTH_SCHEME, (whole: string, scheme: string, space: string, value: string) =>
    /^[a-z]+$/.test(value) ? whole : `${scheme}${space}${REDACTED}`,
  );
  out = replaceMatches(out, lazyPrefixMatches(ASSIGNED_SECRET, out), ([whole, name, between, quote, value]) =>
    !namesASecret(name!) || value === REDACTED ? whole : `${name}${between}${quote}${REDACTED}${quote}`,
  );
  out = out.replace(ASSIGNED_BARE, (whole: string, lead: string, name: string, between: string, value: string) =>
    bareSecret(name, between, value) ? `${lead}${name}${between}${REDACTED}` : whole,
  );
  if (found.has('://'))
    out = out.replace(URL_CREDENTIALS, (_, head: string, _password: string, at: string) => `${head}${REDACTED}${at}`);
  out = out.replace(PROSE_CREDENTIAL, (whole: string, name: string, between: string, quote: string, raw: string) => {
    const value = raw.replace(TRAILING_PUNCTUATION, '');
    return proseCredential(value) ? `${name}${between}${quote}${REDACTED}${quote}${raw.slice(value.length)}` : whole;
  });
  return out.replace(RANDOM_LITERAL, (whole: string, quote: string, literal: string) =>
    looksRandom(literal) ? `${quote}${REDACTED}${quote}` : whole,
  );
}
