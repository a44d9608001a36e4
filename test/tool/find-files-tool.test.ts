/**
 * find_files_to_change as an agent calls it: an issue, traceback and all,
 * answered with the file to change first and the evidence for it; checked
 * arguments, path_prefix kept inside the repository, the answer in its
 * published shape, within the size budget, behind the permission callback,
 * no secrets, and never a throw.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodebaseSearchTool, FindFilesTool, Indexer, type SearchService } from '../../src/index.js';
import type { FileSearchResponse } from '../../src/search/localise/file-search.js';
import { FIND_FILES_OUTPUT } from '../../src/tool/files-schema.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const validateOutput = new Ajv({ allErrors: true }).compile(FIND_FILES_OUTPUT);

/** A small shop: the bug is in pricing.py, which the traceback passes through last. */
const SHOP: Record<string, string> = {
  'shop/pricing.py':
    'DISCOUNTS = {"SPRING10": 10}\n\n\ndef apply_discount(price, code):\n    """Takes a discount code off a price."""\n    percent = DISCOUNTS.get(code.lower())\n    if percent is None:\n        raise ValueError(f"unknown discount code: {code}")\n    return price * (100 - percent) / 100\n',
  'shop/cart.py':
    'from shop.pricing import apply_discount\n\n\nclass Cart:\n    """Items a customer is buying."""\n\n    def __init__(self):\n        self.items = []\n\n    def add_item(self, name, price):\n        self.items.append((name, price))\n\n    def total(self, code=None):\n        subtotal = sum(price for _, price in self.items)\n        if code:\n            return apply_discount(subtotal, code)\n        return subtotal\n',
  'shop/cli.py':
    'import sys\n\nfrom shop.cart import Cart\n\n\ndef main():\n    cart = Cart()\n    cart.add_item("tea", 4.5)\n    print(cart.total(sys.argv[1] if len(sys.argv) > 1 else None))\n',
  'shop/inventory.py':
    'STOCK = {}\n\n\ndef reserve(name, count):\n    """Holds items for a cart until checkout."""\n    if STOCK.get(name, 0) < count:\n        raise ValueError(f"not enough {name} in stock")\n    STOCK[name] -= count\n',
  'docs/usage.md': '# Usage\n\nRun `python -m shop.cli CODE` to price a cart with a discount code.\n',
};

const ISSUE = `Discount codes crash checkout with ValueError

Applying a valid code at checkout fails:

Traceback (most recent call last):
  File "/home/me/project/shop/cli.py", line 9, in main
    print(cart.total(sys.argv[1]))
  File "/home/me/project/shop/cart.py", line 16, in total
    return apply_discount(subtotal, code)
  File "/home/me/project/shop/pricing.py", line 8, in apply_discount
    raise ValueError(f"unknown discount code: {code}")
ValueError: unknown discount code: SPRING10

SPRING10 is listed in \`DISCOUNTS\`, so \`apply_discount\` should accept it.`;

describe('FindFilesTool', () => {
  let repo: TempRepo;
  let search: CodebaseSearchTool;
  let tool: FindFilesTool;
  beforeAll(async () => {
    repo = tempRepo(SHOP);
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    search = new CodebaseSearchTool({ cwd: repo.root });
    tool = new FindFilesTool(search);
  });
  afterAll(async () => {
    await search.close();
    repo.cleanup();
  });

  it('answers an issue with a traceback: the file to change first, with the evidence that points at it', async () => {
    const output = await tool.execute({ issue: ISSUE });
    expect(validateOutput(output), JSON.stringify(validateOutput.errors)).toBe(true);
    expect(output.error).toBeUndefined();
    expect(output.fallback_used).toBe(false);
    const [first] = output.files;
    expect(first).toMatchObject({ path: 'shop/pricing.py', score: expect.any(Number) });
    const kinds = Object.fromEntries(first!.evidence.map(({ kind, said }) => [kind, said]));
    expect(kinds.frame).toContain('in the traceback (apply_discount)');
    expect(kinds.defines).toContain('defines apply_discount');
    expect(kinds.error?.[0]).toMatch(/unknown discount code/);
    // The other frames' files follow it.
    expect(
      output.files
        .map((file) => file.path)
        .slice(1, 3)
        .sort(),
    ).toEqual(['shop/cart.py', 'shop/cli.py']);
    expect((await tool.execute({ issue: ISSUE, limit: 1 })).files.map((file) => file.path)).toEqual([
      'shop/pricing.py',
    ]);
  });

  it('keeps to path_prefix, and says what it was matched as when nothing is there', async () => {
    const docs = await tool.execute({ issue: ISSUE, path_prefix: 'docs' });
    expect(docs.files.map((file) => file.path)).toEqual(['docs/usage.md']);
    const nowhere = await tool.execute({ issue: ISSUE, path_prefix: 'src/not-yet-written' });
    expect(nowhere.files).toEqual([]);
    expect(nowhere.note).toMatch(
      /no file matched with path_prefix set.*no repository searched has src\/not-yet-written/,
    );
    expect((await tool.execute({ issue: ISSUE, path_prefix: '../..' })).error).toMatch(
      /^path_prefix refused: .* leads outside the repository being searched/,
    );
  });

  it('refuses bad arguments and denied calls with an error, never a throw', async () => {
    const guarded = new FindFilesTool(
      new CodebaseSearchTool({
        cwd: repo.root,
        permission: (request) =>
          request.tool !== 'find_files_to_change' || !request.arguments.issue.includes('forbidden'),
      }),
    );
    const cases: [unknown, RegExp][] = [
      [{}, /^invalid arguments: "issue" is required$/],
      [{ issue: 'x', k: 3 }, /unknown argument "k" \(allowed: issue, limit, path_prefix, repos\)/],
      [{ issue: 'x', limit: 51 }, /limit must be <= 50/],
      [{ issue: '' }, /issue must NOT have fewer than 1 characters/],
      [{ issue: 'x'.repeat(100_001) }, /issue must NOT have more than 100000 characters/],
      [{ issue: '   \n ' }, /^invalid arguments: the query is empty$/],
      [{ issue: ISSUE, repos: ['no-such-repo'] }, /^invalid arguments: .*no-such-repo/],
      [{ issue: 'a forbidden issue' }, /^the call was denied$/],
      ['not an object', /the arguments must be an object/],
    ];
    for (const [args, message] of cases) {
      const output = await guarded.execute(args);
      expect(output, JSON.stringify(args).slice(0, 60)).toMatchObject({ files: [], fallback_used: false });
      expect(output.error, JSON.stringify(args).slice(0, 60)).toMatch(message);
      expect(validateOutput(output)).toBe(true);
    }
  });

  it('answers an error when there is no index yet', async () => {
    const empty = tempRepo({ 'a.py': 'x = 1\n' });
    try {
      const output = await new FindFilesTool(new CodebaseSearchTool({ cwd: empty.root })).execute({ issue: ISSUE });
      expect(output.error).toMatch(/^no index at or above .*: build one with oc-vector-index/);
    } finally {
      empty.cleanup();
    }
  });
});

describe('FindFilesTool over any search service', () => {
  /** A service whose file search answers `files` (as the index could hold them), whatever it is asked. */
  function serviceAnswering(files: FileSearchResponse['files']): SearchService {
    const response: FileSearchResponse = {
      title: 'an issue',
      length: 8,
      requestedMode: 'hybrid',
      mode: 'hybrid',
      files,
      timings: { elementsMs: 0, evidenceMs: 0, totalMs: 0 },
    };
    return { searchFiles: async () => response } as unknown as SearchService;
  }
  const file = (path: string, said: string[]): FileSearchResponse['files'][number] => ({
    repo: 'app',
    path,
    absolutePath: `/repo/${path}`,
    score: 1,
    evidence: [{ kind: 'error', said }],
  });

  it('leaves credentials files out and redacts what the evidence quotes', async () => {
    const service = serviceAnswering([
      file('config/.env', ['uses DATABASE_URL']),
      file('deploy/id_rsa', ['its words']),
      file('src/db.py', ['raises "token = ghp_0123456789abcdefghijABCDEFGHIJ012345 expired"']),
    ]);
    const output = await new FindFilesTool(new CodebaseSearchTool({ searcher: service })).execute({ issue: 'x' });
    expect(output.files.map((hit) => hit.path)).toEqual(['src/db.py']);
    expect(output.files[0]!.evidence[0]!.said).toEqual(['raises "token = [redacted] expired"']);
    expect(JSON.stringify(output)).not.toContain('ghp_0123456789');
  });

  it('stays within the size budget: whole files first, then less evidence, then fewer files, saying so', async () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      file(`src/module${i}.py`, [`raises "${'a long error message '.repeat(30)}"`, 'second', 'third']),
    );
    for (const maxOutputChars of [1_000, 3_000, 8_000]) {
      const small = new CodebaseSearchTool({ searcher: serviceAnswering(many), budget: { maxOutputChars } });
      const output = await new FindFilesTool(small).execute({ issue: 'x', limit: 40 });
      expect(JSON.stringify(output).length).toBeLessThanOrEqual(maxOutputChars);
      expect(validateOutput(output)).toBe(true);
      expect(output.files.length).toBeGreaterThan(0);
      expect(output.files[0]!.path).toBe('src/module0.py');
      // A quoted message is cut to a size of its own, whatever its length in the issue.
      expect(output.files[0]!.evidence[0]!.said[0]!.length).toBeLessThanOrEqual(200);
      expect(output).toMatchObject({ truncated: true, note: expect.stringMatching(/of 40 files listed.*size budget/) });
    }
    const roomy = new CodebaseSearchTool({ searcher: serviceAnswering(many.slice(0, 2)) });
    const whole = await new FindFilesTool(roomy).execute({ issue: 'x' });
    expect(whole.truncated).toBeUndefined();
    expect(whole.files[1]!.evidence[0]!.said).toHaveLength(3);
  });
});
