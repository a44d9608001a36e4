/**
 * Vectors in pgvector's binary form, both ways. A batch of vectors as text is about 4.5 bytes a
 * component to format on the client and to parse again, one strtof each, on the server: a
 * noticeable share of a load's time on both (docs/postgres.md, "The figures behind the
 * constants"). In binary each component is its 4 bytes, copied.
 *
 * pgvector's vector_recv and vector_send (src/vector.c): int16 dimensions, int16 unused (0), then
 * each component a float4, all in network byte order. An array parameter in binary is
 * PostgreSQL's array_recv format (src/backend/utils/adt/arrayfuncs.c), which names its element
 * type by OID: pgvector's `vector` has no fixed OID, so it is asked once (vectorTypeOid).
 */
import { StoreError } from '../errors.js';
import type { Queryable } from './serial.js';

/** The OID of pgvector's `vector` type, as the store's statements name it (unqualified, on the search path). */
export async function vectorTypeOid(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ oid: number }>(`SELECT 'vector'::regtype::oid::integer AS oid`);
  return rows[0]!.oid;
}

/**
 * Vectors as a binary `vector[]` parameter (node-postgres sends a Buffer in binary), after
 * checking each: `dimension` finite numbers. A vector of another length is a StoreError
 * (EMBEDDER_MISMATCH), NaN or an infinity a RangeError; `what(i)` names the vector in the error.
 */
export function vectorArrayParameter(
  vectors: readonly ArrayLike<number>[],
  dimension: number,
  vectorOid: number,
  what: (i: number) => string,
): Buffer {
  const itemBytes = 4 + 4 * dimension;
  const buffer = Buffer.allocUnsafe(20 + vectors.length * (4 + itemBytes));
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  // One dimension, no NULLs, the element type, the length, lower bound 1.
  view.setInt32(0, 1);
  view.setInt32(4, 0);
  view.setUint32(8, vectorOid);
  view.setInt32(12, vectors.length);
  view.setInt32(16, 1);
  let at = 20;
  vectors.forEach((vector, v) => {
    if (vector.length !== dimension)
      throw new StoreError(
        `${what(v)} has ${vector.length} dimensions, the vector space ${dimension}`,
        'EMBEDDER_MISMATCH',
      );
    view.setInt32(at, itemBytes);
    view.setInt16(at + 4, dimension);
    view.setInt16(at + 6, 0);
    at += 8;
    for (let i = 0; i < dimension; i++) {
      const value = vector[i];
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new RangeError(`${what(v)} holds ${String(value)} at ${i}: a vector's values must be finite numbers`);
      view.setFloat32(at, value);
      at += 4;
    }
  });
  return buffer;
}

/** A vector from vector_send's bytes (a bytea read back as a Buffer). */
export function vectorFromSend(bytes: Buffer): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimension = view.getInt16(0);
  if (bytes.byteLength !== 4 + 4 * dimension)
    throw new StoreError(`a stored vector of ${dimension} dimensions holds ${bytes.byteLength} bytes`, 'CORRUPT');
  const vector = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) vector[i] = view.getFloat32(4 + 4 * i);
  return vector;
}
