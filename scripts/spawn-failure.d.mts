/** See spawn-failure.mjs. */
export declare function spawnFailure(
  command: string,
  result: { status: number | null; signal: string | null; error?: Error & { code?: string } },
): string;
