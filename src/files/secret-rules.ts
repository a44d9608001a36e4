/**
 * gitleaks' rules (resources/secret-rules/gitleaks.json, vendored from its
 * config/gitleaks.toml, MIT) run as gitleaks runs them: a rule is tried only
 * on text holding one of its keywords; its secret is the rule's secret group,
 * else the first group that matched, else the whole match; a secret no more
 * random than the rule's entropy, or allowed by the rule's or the global
 * allowlist (regexes, stop words), is not one. People whose work it is keep
 * these rules in step with the formats providers issue; a hand-kept list
 * falls behind.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type FoundKeywords, KeywordScanner } from './keyword-scan.js';
import { everyMatch, type LazyPrefixRegex, lazyPrefixMatches, wordOrDotOrDash } from './lazy-prefix.js';

const RULES_FILE = fileURLToPath(new URL('../../resources/secret-rules/gitleaks.json', import.meta.url));

interface AllowlistData {
  regexTarget?: 'secret' | 'match' | 'line';
  condition?: 'OR' | 'AND';
  regexes?: string[];
  stopwords?: string[];
}

interface RuleData {
  id: string;
  regex: string;
  keywords: string[];
  secretGroup?: number;
  entropy?: number;
  allowlists?: AllowlistData[];
}

interface RulesData {
  allowlist: AllowlistData;
  rules: RuleData[];
}

interface Allowlist {
  target: 'secret' | 'match' | 'line';
  all: boolean;
  regexes: readonly RegExp[];
  stopwords: readonly string[];
}

interface Rule {
  id: string;
  regex: RegExp;
  keywords: readonly string[];
  secretGroup: number;
  entropy: number;
  allowlists: readonly Allowlist[];
  /** How a semi-generic rule is searched without its slow first step; see {@link semiGeneric}. */
  semiGeneric: LazyPrefixRegex | undefined;
}

/** Compiled rules, the global allowlist, and one scanner for all the rules' keywords. */
export interface RuleSet {
  rules: Rule[];
  global: Allowlist;
  /** Every rule's keywords, once each. */
  keywords: readonly string[];
  scanner: KeywordScanner;
}

/** Where a secret lies in the text: [start, end) in UTF-16 units. */
export interface SecretSpan {
  start: number;
  end: number;
  rule: string;
}

/**
 * The rules gitleaks keeps that ocvector leaves out, by id. Its Slack
 * webhook rule takes the whole URL: the hand-kept rule of redact.ts
 * takes its path alone, and the host left says what it was. Its
 * `generic-api-key` (a secret named by a word near it) is kept: measured with
 * the rest (bench/secret-rules.ts), it catches shapes the hand-kept rules
 * miss and redacts less real code than they do.
 */
const LEFT_OUT_RULES: ReadonlySet<string> = new Set(['slack-webhook-url']);

function allowlist(data: AllowlistData): Allowlist {
  return {
    target: data.regexTarget ?? 'secret',
    all: data.condition === 'AND',
    regexes: (data.regexes ?? []).map((source) => new RegExp(source)),
    stopwords: data.stopwords ?? [],
  };
}

/** The first step of a semi-generic rule: a run of up to N word characters, dots and dashes, as few as will do. */
const SEMI_GENERIC_PREFIX = /^\[\\w\.-\]\{0,(\d+)\}\?/;

/** Whether a regex source has a `|` outside every group and class (then its first step is not every match's). */
function topLevelAlternation(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') i++;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === '|' && depth === 0) return true;
  }
  return false;
}

/**
 * gitleaks' semi-generic rules ("an identifier, an operator, a value")
 * start with `[\w.-]{0,N}?`: such a rule is searched from the rest of its
 * regex (lazy-prefix.ts), with the same matches.
 */
function semiGeneric(source: string): LazyPrefixRegex | undefined {
  const prefix = SEMI_GENERIC_PREFIX.exec(source);
  if (!prefix || topLevelAlternation(source)) return undefined;
  return {
    core: new RegExp(source.slice(prefix[0].length), 'g'),
    anchored: new RegExp(source, 'dy'),
    inRun: wordOrDotOrDash,
    reach: Number(prefix[1]),
    wordBoundary: false,
  };
}

let loaded: RuleSet | undefined;

/** The vendored rules, compiled on first use (a worker that never redacts never reads them). */
export function gitleaksRules(leaveOut: ReadonlySet<string> = LEFT_OUT_RULES): RuleSet {
  if (loaded && leaveOut === LEFT_OUT_RULES) return loaded;
  const data = JSON.parse(readFileSync(RULES_FILE, 'utf8')) as RulesData;
  const kept = data.rules.filter((rule) => !leaveOut.has(rule.id));
  const keywords = [...new Set(kept.flatMap((rule) => rule.keywords))];
  const compiled: RuleSet = {
    global: allowlist(data.allowlist),
    keywords,
    scanner: new KeywordScanner(keywords),
    rules: kept.map((rule) => ({
      id: rule.id,
      regex: new RegExp(rule.regex, 'dg'),
      keywords: rule.keywords,
      secretGroup: rule.secretGroup ?? 0,
      entropy: rule.entropy ?? 0,
      allowlists: (rule.allowlists ?? []).map(allowlist),
      semiGeneric: semiGeneric(rule.regex),
    })),
  };
  if (leaveOut === LEFT_OUT_RULES) loaded = compiled;
  return compiled;
}

/** Shannon entropy of the characters of `text`, in bits per character (gitleaks' measure). */
export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function allowed(list: Allowlist, secret: string, match: string, line: string): boolean {
  const target = list.target === 'match' ? match : list.target === 'line' ? line : secret;
  const lower = secret.toLowerCase();
  const byRegex = list.regexes.length > 0 && list.regexes.some((regex) => regex.test(target));
  const byStopword = list.stopwords.length > 0 && list.stopwords.some((word) => lower.includes(word));
  if (!list.all) return byRegex || byStopword;
  const checks: boolean[] = [];
  if (list.regexes.length > 0) checks.push(byRegex);
  if (list.stopwords.length > 0) checks.push(byStopword);
  return checks.length > 0 && checks.every(Boolean);
}

/** The line(s) of `text` that hold [start, end). */
function linesAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to === -1 ? text.length : to);
}

/** The secret of one match, where it lies, as gitleaks picks it. */
function secretOf(rule: Rule, match: RegExpExecArray): { start: number; end: number } {
  const indices = match.indices!;
  if (rule.secretGroup > 0) {
    const span = indices[rule.secretGroup];
    if (span) return { start: span[0], end: span[1] };
  } else {
    for (let group = 1; group < match.length; group++) {
      const span = indices[group];
      if (span && span[1] > span[0]) return { start: span[0], end: span[1] };
    }
  }
  // The whole match, less the line breaks at its ends.
  let [start, end] = indices[0]!;
  while (start < end && match.input[start] === '\n') start++;
  while (end > start && match.input[end - 1] === '\n') end--;
  return { start, end };
}

/**
 * How {@link findRuleSecrets} runs the rules. `indexed`: keywords found in
 * one pass, semi-generic rules searched from their core. `plain`: as gitleaks
 * runs them, a search of the text per keyword and each rule's regex over the
 * whole text; the same secrets, slower, kept to check the other against.
 */
export type RuleScan = 'indexed' | 'plain';

/**
 * Every secret gitleaks' rules find in `text`. `found`: the keywords the
 * text holds, when the caller has scanned it for these rules' keywords and
 * others at once (redact.ts).
 */
export function findRuleSecrets(
  text: string,
  rules = gitleaksRules(),
  scan: RuleScan = 'indexed',
  found?: FoundKeywords,
): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const holds = keywordTest(text, rules, scan, found);
  for (const rule of rules.rules) {
    if (rule.keywords.length > 0 && !holds(rule)) continue;
    const matches =
      scan === 'indexed' && rule.semiGeneric ? lazyPrefixMatches(rule.semiGeneric, text) : everyMatch(rule.regex, text);
    for (const match of matches) {
      const { start, end } = secretOf(rule, match);
      if (end <= start) continue;
      const secret = text.slice(start, end);
      if (rule.entropy > 0 && shannonEntropy(secret) <= rule.entropy) continue;
      const line = linesAround(text, match.index, match.index + match[0].length);
      if (allowed(rules.global, secret, match[0], line)) continue;
      if (rule.allowlists.some((list) => allowed(list, secret, match[0], line))) continue;
      spans.push({ start, end, rule: rule.id });
    }
  }
  return spans;
}

/** Whether the text holds one of a rule's keywords, case-insensitively. */
function keywordTest(text: string, rules: RuleSet, scan: RuleScan, found?: FoundKeywords): (rule: Rule) => boolean {
  if (scan === 'plain') {
    const lower = text.toLowerCase();
    return (rule) => rule.keywords.some((keyword) => lower.includes(keyword));
  }
  const holds = found ?? rules.scanner.scan(text);
  return (rule) => rule.keywords.some((keyword) => holds.has(keyword));
}
