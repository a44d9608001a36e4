/**
 * The ways an embedding server can answer vectors that cannot be indexed,
 * as the fake servers (fake-ollama.ts, fake-openai.ts) send them: each row
 * is JSON text, so that an infinity can be sent as a real server would (a
 * number too large, `1e999`, which JSON.parse reads as Infinity).
 */
import { BuiltinEmbedder } from '../../src/vector/builtin-embedder.js';

export type Misbehaviour =
  /** 70,000 dimensions: more than FAISS indexes (65,536). */
  | 'oversized'
  /** A value too large for a double (1e999): Infinity once parsed. */
  | 'infinite'
  /** The last vector of each answer all zeros (the others good). */
  | 'zero'
  /** Four dimensions more than the server answered before. */
  | 'changing-dimension';

export const MISBEHAVIOURS: readonly Misbehaviour[] = ['oversized', 'infinite', 'zero', 'changing-dimension'];

export const OVERSIZED_DIMENSION = 70_000;

/**
 * One JSON array per input: the built-in embedder's vector at `dimension`
 * (as a well-behaved server answers), or what `misbehaviour` makes of it.
 */
export function embeddingRows(inputs: readonly string[], dimension: number, misbehaviour?: Misbehaviour): string[] {
  const width = misbehaviour === 'changing-dimension' ? dimension + 4 : dimension;
  const vectors = new BuiltinEmbedder({ dimension: width }).embedDocumentsSync(inputs);
  return inputs.map((_, i) => {
    const row = Array.from(vectors.subarray(i * width, (i + 1) * width), String);
    if (misbehaviour === 'oversized') row.push(...new Array<string>(OVERSIZED_DIMENSION - width).fill('0'));
    if (misbehaviour === 'infinite') row[0] = '1e999';
    if (misbehaviour === 'zero' && i === inputs.length - 1) row.fill('0');
    return `[${row.join(',')}]`;
  });
}
