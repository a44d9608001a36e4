/**
 * Secret rule sets measured side by side: recall on the secret corpus
 * (test/fixtures/secrets/corpus.ts: issue 54's 35 shapes and our own), and
 * what each redacts in real code, where every redaction is a false positive
 * that costs search quality: files changed and redactions per 1,000 files of
 * the benchmark corpora, and the time each takes per MB.
 *
 *   npm run bench:secret-rules -- [--repos /work/corpora/semble] [--baseline path/to/old-redact.ts] [--list] [--rounds 3]
 *
 * --repos: the semble benchmark's checked-out repositories (each one's
 * benchmark_root is read, as eval:semble indexes it); without it, this
 * checkout's src/ and node_modules/ are the real code. --baseline: another
 * redact.ts (HEAD's, say) measured beside. --list: print each file a rule set
 * changes. --rounds: the rule sets are timed in turn, this many times over
 * (each time over all files), and the median is shown, so that every set
 * meets the same load. The run also checks that gitleaks' rules find the
 * same secrets run indexed (one keyword scan, semi-generic rules from their
 * core) as run plainly (each rule over the whole text), on every text, and
 * fails when they differ. secretlint's recommended preset is measured when it can be imported
 * (`npm i --no-save @secretlint/core @secretlint/secretlint-rule-preset-recommend`).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REDACTED, redactHandKept, redactSecrets, redactSpans } from '../src/files/redact.js';
import { scanRoot } from '../src/files/scan.js';
import { findRuleSecrets, gitleaksRules, type RuleSet } from '../src/files/secret-rules.js';
import { leaked, SECRET_CASES } from '../test/fixtures/secrets/corpus.js';

const { values } = parseArgs({
  options: {
    repos: { type: 'string' },
    benchmark: { type: 'string', default: '/work/shared/semble-benchmark' },
    baseline: { type: 'string' },
    list: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
  },
});

type Redact = (text: string, path: string) => string | Promise<string>;

const allGitleaks = gitleaksRules(new Set());
const lessGeneric = gitleaksRules(new Set(['generic-api-key']));
const sets: [string, Redact][] = [
  ['ocvector (gitleaks, then hand-kept)', (text) => redactSecrets(text)],
  ['hand-kept rules alone', (text) => redactHandKept(text)],
  ['gitleaks, all rules', (text) => redactSpans(text, findRuleSecrets(text, allGitleaks))],
  ['gitleaks less generic-api-key', (text) => redactSpans(text, findRuleSecrets(text, lessGeneric))],
];
if (values.baseline) {
  const baseline = (await import(resolve(values.baseline))) as { redactSecrets: (text: string) => string };
  sets.unshift(['baseline (--baseline)', (text) => baseline.redactSecrets(text)]);
}
const secretlint = await loadSecretlint();
if (secretlint) sets.push(['secretlint preset-recommend', secretlint]);
else process.stderr.write('secretlint: not installed here, left out (see the header of this file)\n');

/** secretlint's recommended preset as a redactor: each message's range becomes [redacted]. */
async function loadSecretlint(): Promise<Redact | undefined> {
  try {
    const core = await import('@secretlint/core' as string);
    const preset = await import('@secretlint/secretlint-rule-preset-recommend' as string);
    const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }] };
    return async (text, path) => {
      const result = await core.lintSource({
        source: { filePath: path, content: text, contentType: 'text' },
        options: { config },
      });
      const spans = (result.messages as { range: [number, number] }[]).map(({ range }) => ({
        start: range[0],
        end: range[1],
        rule: '',
      }));
      return redactSpans(text, spans);
    };
  } catch {
    return undefined;
  }
}

async function realFiles(): Promise<{ path: string; text: string }[]> {
  const roots: string[] = [];
  if (values.repos) {
    const repos = JSON.parse(readFileSync(join(values.benchmark!, 'repos.json'), 'utf8')) as {
      name: string;
      benchmark_root?: string;
    }[];
    for (const repo of repos) roots.push(join(resolve(values.repos), repo.name, repo.benchmark_root ?? '.'));
  } else roots.push(resolve('src'), resolve('node_modules'));
  const files: { path: string; text: string }[] = [];
  for (const root of roots) {
    let scanned: Awaited<ReturnType<typeof scanRoot>>;
    try {
      scanned = await scanRoot(root);
    } catch {
      process.stderr.write(`${root}: not readable, left out\n`);
      continue;
    }
    for (const file of scanned) {
      if (file.size > 1024 * 1024) continue;
      const bytes = readFileSync(file.absolutePath);
      if (bytes.subarray(0, 8000).includes(0)) continue; // binary: never indexed
      files.push({ path: file.absolutePath, text: bytes.toString('utf8') });
    }
  }
  return files;
}

const count = (text: string) => text.split(REDACTED).length - 1;
const corpus = SECRET_CASES;
const real = await realFiles();
const megabytes = real.reduce((sum, file) => sum + Buffer.byteLength(file.text), 0) / 1e6;

console.log(
  `corpus: ${corpus.length} cases (${corpus.filter((c) => c.issue54).length} of issue 54), real code: ${real.length} files, ${megabytes.toFixed(1)} MB\n`,
);
/** The texts (by path) where the indexed scan of `rules` finds other secrets than the plain one. */
function scansDiffer(texts: readonly { path: string; text: string }[], rules: RuleSet): string[] {
  const differ: string[] = [];
  for (const { path, text } of texts) {
    const indexed = JSON.stringify(findRuleSecrets(text, rules, 'indexed'));
    if (indexed !== JSON.stringify(findRuleSecrets(text, rules, 'plain'))) differ.push(path);
  }
  return differ;
}

const texts = [...corpus.map(({ id, text }) => ({ path: `corpus: ${id}`, text })), ...real];
for (const [name, rules] of [
  ['ocvector', gitleaksRules()],
  ['all rules', allGitleaks],
] as const) {
  const differ = scansDiffer(texts, rules);
  console.log(`gitleaks (${name}), indexed vs plain scan: ${differ.length} of ${texts.length} texts differ`);
  for (const path of differ) console.log(`    differs: ${path}`);
  if (differ.length > 0) process.exitCode = 1;
}
console.log('');

const rounds = Math.max(1, Number(values.rounds));
const timings = new Map<string, number[]>(sets.map(([name]) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, redact] of sets) {
    const started = performance.now();
    for (const file of real) await redact(file.text, file.path);
    timings.get(name)!.push((performance.now() - started) / megabytes);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

console.log('| rule set | issue 54 caught | all caught | files changed /1000 | redactions /1000 files | ms per MB |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
const missedBy = new Map<string, string[]>();
for (const [name, redact] of sets) {
  let issueCaught = 0;
  let caught = 0;
  const missed: string[] = [];
  for (const secretCase of corpus) {
    const redacted = await redact(secretCase.text, secretCase.path);
    const ok = secretCase.secrets.every((secret) => !leaked(secret, redacted));
    if (ok) {
      caught++;
      if (secretCase.issue54) issueCaught++;
    } else missed.push(secretCase.id);
  }
  missedBy.set(name, missed);
  let changed = 0;
  let redactions = 0;
  const changedFiles: string[] = [];
  for (const file of real) {
    const redacted = await redact(file.text, file.path);
    if (redacted !== file.text) {
      changed++;
      redactions += count(redacted) - count(file.text);
      changedFiles.push(file.path);
    }
  }
  const perThousand = (n: number) => ((n * 1000) / real.length).toFixed(1);
  console.log(
    `| ${name} | ${issueCaught}/${corpus.filter((c) => c.issue54).length} | ${caught}/${corpus.length} | ${perThousand(changed)} | ${perThousand(redactions)} | ${median(timings.get(name)!).toFixed(1)} |`,
  );
  if (values.list) for (const path of changedFiles) console.log(`    changed: ${path}`);
}
console.log('');
console.log(`ms per MB: the median of ${rounds} rounds, each timing every rule set in turn`);
for (const [name, missed] of missedBy) console.log(`${name} misses: ${missed.join('; ') || 'none'}`);
