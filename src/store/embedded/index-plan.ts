/**
 * Which FAISS index an embedded store keeps for a number of vectors: exact
 * (Flat, ids mapped) while small; past a threshold IVF, whose lists hold
 * each vector at half precision (the precision the store rounds vectors to,
 * so nothing is lost, and half the file and memory of float32 lists).
 */

/** Which FAISS index a number of vectors calls for. */
export function planIndex(count: number, threshold: number): { description: string; ids: boolean } {
  if (count < threshold) return { description: 'Flat', ids: true };
  // About 4·√n lists (FAISS's guidance), a power of two.
  const nlist = Math.max(64, Math.min(65_536, 2 ** Math.round(Math.log2(4 * Math.sqrt(count)))));
  // Half-precision codes: the vectors are rounded to binary16 already, so they lose nothing, and
  // the file is half the size; the addon scans them itself (half_ivf_search.cc), faster than float32
  // lists, where FAISS's portable scan is slower (docs/performance.md, "How the vectors are kept").
  return { description: `IVF${nlist},SQfp16`, ids: false };
}

/** How many IVF lists a search visits: 1/16 of them keeps recall@10 near 0.95 on code vectors. */
export function nprobeFor(description: string): number | undefined {
  const nlist = nlistOf(description);
  return nlist === undefined ? undefined : Math.max(8, nlist >> 4);
}

/** An IVF description's number of lists; undefined for any other index. */
export function nlistOf(description: string): number | undefined {
  const nlist = /^IVF(\d+)/.exec(description)?.[1];
  return nlist === undefined ? undefined : Number(nlist);
}

/**
 * Whether an index of `current` type should be rebuilt as `planned`: from
 * exact to IVF past the threshold, and back below half of it, so that an
 * index near the threshold does not flip back and forth. An IVF index of an
 * older layout (float32 lists) is kept until then.
 */
export function typeChanged(current: string, planned: string, count: number, threshold: number): boolean {
  if (current === 'Flat') return planned !== 'Flat';
  return count < threshold / 2;
}
