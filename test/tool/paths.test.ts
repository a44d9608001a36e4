/**
 * confineToRoots: a path kept to the repositories searched (issue 38,
 * defect 2), with or without their checkouts on this machine.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathOutsideRootError } from '../../src/files/errors.js';
import { confineToRoots } from '../../src/tool/paths.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

let first: TempRepo;
let second: TempRepo;
/** A repository indexed elsewhere (a CI machine): its recorded root is not on this one. */
const absent = join('/nonexistent-checkouts', 'ocvector-test', 'billing');

beforeAll(() => {
  first = tempRepo({ 'src/a.ts': 'export const a = 1;\n' });
  second = tempRepo({ 'lib/b.ts': 'export const b = 2;\n' });
});

afterAll(() => {
  first?.cleanup();
  second?.cleanup();
});

/** The refusal's message, naming no root. */
function refusal(roots: readonly string[], path: string): string {
  try {
    confineToRoots(roots, path);
  } catch (error) {
    expect(error).toBeInstanceOf(PathOutsideRootError);
    const message = (error as Error).message;
    for (const root of roots) if (!path.startsWith(root)) expect(message).not.toContain(root);
    return message;
  }
  throw new Error(`${path} was accepted`);
}

describe('confineToRoots', () => {
  it('makes an absolute path relative to the searched repository that holds it', () => {
    expect(confineToRoots([second.root], join(second.root, 'lib'))).toBe('lib');
    expect(confineToRoots([first.root, second.root], join(second.root, 'lib/*.ts'))).toBe('lib/*.ts');
    expect(confineToRoots([first.root, second.root], join(first.root, 'src'))).toBe('src');
    expect(confineToRoots([second.root], 'lib/')).toBe('lib/');
  });

  it('refuses a path outside the searched repositories, naming none of them', () => {
    expect(refusal([second.root], '/etc')).toBe('/etc is outside the repository being searched');
    expect(refusal([second.root], join(first.root, 'src'))).toMatch(/is outside the repository being searched$/);
    expect(refusal([second.root], '../x')).toBe('../x leads outside the repository being searched');
  });

  it('without a checkout, reads nothing: its recorded root bounds an absolute path, and `..` is refused', () => {
    expect(confineToRoots([absent], 'orders/invoice.ts')).toBe('orders/invoice.ts');
    expect(confineToRoots([absent], join(absent, 'orders'))).toBe('orders');
    expect(confineToRoots([absent, second.root], 'lib')).toBe('lib');
    expect(refusal([absent], '/etc')).toBe('/etc is outside the repository being searched');
    expect(refusal([absent], 'orders/../../x')).toMatch(/leads outside the repository being searched/);
  });
});
