/**
 * The reason a test is skipped, carried in its name (`name [reason]`): vitest prints the name of
 * a skipped test, and the summary line (test/reporters/summary-line.ts) reads the reason back and
 * counts the tests skipped for each. A test that cannot run here is declared with `it.skipIf` /
 * `describe.skipIf` and such a name, never passed.
 */

/** `name` as a test skipped for `reason` is named. */
export function skippedName(name: string, reason: string): string {
  return `${name} [${reason}]`;
}

/** The reason in a skipped test's name; undefined for a name without one. */
export function skipReason(name: string): string | undefined {
  return /\s\[([^\]]+)\]$/.exec(name)?.[1];
}
