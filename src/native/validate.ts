/**
 * Checks done in JavaScript before a call crosses into the addon: types,
 * shapes and small values. The values of large vector arrays (NaN, infinity)
 * are checked by the addon on its worker thread, so that a 300 MB add does not
 * stall the event loop for a scan.
 */
import { invalidArgument } from './errors.js';
import type { Device, Metric } from './addon.js';

export const MAX_DIMENSION = 65_536;
export const MAX_K = 1 << 20;
/** Results (nq·k) one search call may return: 12 bytes each, allocated before the search runs. */
export const MAX_RESULTS = 1 << 26;
/**
 * The most neighbours (k), and IVF lists (nprobe), one search of a GPU index may
 * ask for: FAISS's GPU k-selection limit (GPU_MAX_SELECTION_K in
 * faiss/gpu/utils/DeviceDefs.cuh). Past it FAISS fails deep in its GPU code; the
 * addon checks the value its FAISS was built with too.
 */
export const GPU_MAX_K = 2048;

export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(`${name} must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/** Refuses, before any GPU call, a k or nprobe past FAISS's GPU limit. */
export function checkGpuSearch(k: number, nprobe: number | undefined): void {
  if (k > GPU_MAX_K) {
    throw invalidArgument(
      `k is ${k}, more than the ${GPU_MAX_K} neighbours a GPU index returns (FAISS's GPU limit); pass k <= ${GPU_MAX_K}, or search a CPU copy (copyTo('cpu'))`,
    );
  }
  if (nprobe !== undefined && nprobe > GPU_MAX_K) {
    throw invalidArgument(
      `nprobe is ${nprobe}, more than the ${GPU_MAX_K} lists a GPU index visits (FAISS's GPU limit); pass nprobe <= ${GPU_MAX_K}`,
    );
  }
}

/** Why an index refuses removals, and what to do instead. */
export function cannotRemoveMessage(description: string, device: 'cpu' | 'gpu'): string {
  return device === 'gpu'
    ? `this index (${description}) is on a GPU, and FAISS's GPU indexes cannot remove vectors: remove them from a CPU copy (copyTo('cpu')) and place that on the GPU again (copyTo('gpu')), or rebuild the index without them`
    : `this index (${description}) cannot remove vectors; rebuild it without them, or use a Flat or IVF index`;
}

/** Why a GPU index refuses a search restricted to allowed ids, and what to do instead. */
export function cannotRestrictOnGpuMessage(description: string): string {
  return `this index (${description}) is on a GPU, and FAISS's GPU indexes cannot restrict a search to allowed ids: search the CPU index it was copied from, or a CPU copy (copyTo('cpu'))`;
}

/**
 * Rows of finite floats (the addon checks this on its worker thread; a
 * batcher checks each caller's rows first, so that one bad row fails its own
 * caller and not the batch).
 */
export function checkFinite(name: string, values: Float32Array, dimension: number): void {
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (Number.isFinite(value)) continue;
    throw invalidArgument(
      `${name} holds ${Number.isNaN(value) ? 'NaN' : 'an infinite value'} at row ${Math.floor(i / dimension)}, column ${i % dimension}`,
    );
  }
}

export function checkMetric(value: unknown): Metric {
  if (value !== 'ip' && value !== 'l2') {
    throw invalidArgument(`metric must be 'ip' (inner product) or 'l2', got ${describe(value)}`);
  }
  return value;
}

export function checkDevice(value: unknown): Device {
  if (value !== 'cpu' && value !== 'gpu' && value !== 'auto') {
    throw invalidArgument(`device must be 'cpu', 'gpu' or 'auto', got ${describe(value)}`);
  }
  return value;
}

/** A FAISS index_factory string such as "Flat", "HNSW32,Flat", "IVF256,PQ16". */
export function checkDescription(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_,.=+-]{1,256}$/.test(value)) {
    throw invalidArgument(
      `description must be a FAISS factory string such as "Flat", "HNSW32,Flat" or "IVF256,PQ16", got ${describe(value)}`,
    );
  }
  return value;
}

/** Rows of `dimension` floats; returns the number of rows. */
export function checkVectors(name: string, value: unknown, dimension: number): number {
  if (!(value instanceof Float32Array)) {
    throw invalidArgument(`${name} must be a Float32Array (rows of ${dimension} floats), got ${describe(value)}`);
  }
  if (value.length === 0 || value.length % dimension !== 0) {
    throw invalidArgument(
      `${name} has ${value.length} values, which is not a positive multiple of the dimension ${dimension}`,
    );
  }
  return value.length / dimension;
}

export type IdsInput = BigInt64Array | readonly (number | bigint)[];

/** Vector ids: non-negative integers (FAISS uses -1 for "no result"). */
export function toIdArray(name: string, value: unknown): BigInt64Array {
  if (value instanceof BigInt64Array) {
    const negative = value.findIndex((id) => id < 0n);
    if (negative >= 0) throw invalidArgument(`${name}[${negative}] is ${value[negative]}; ids must be >= 0`);
    return value;
  }
  if (!Array.isArray(value)) {
    throw invalidArgument(`${name} must be a BigInt64Array or an array of integers, got ${describe(value)}`);
  }
  const ids = new BigInt64Array(value.length);
  for (let i = 0; i < value.length; i++) ids[i] = toId(`${name}[${i}]`, value[i]);
  return ids;
}

/**
 * The ids a search may return (`SearchParams.allowed`), ascending without
 * repeats, as the addon takes them: the caller's BigInt64Array when it is
 * already so, else a sorted copy (the caller's array is never reordered).
 */
export function toAllowedIds(value: unknown): BigInt64Array {
  const ids = toIdArray('allowed', value);
  let ascending = true;
  for (let i = 1; i < ids.length && ascending; i++) ascending = ids[i - 1]! < ids[i]!;
  if (ascending) return ids;
  const sorted = (ids === value ? ids.slice() : ids).sort();
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (kept === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i]!;
  }
  return sorted.subarray(0, kept);
}

export function toId(name: string, value: unknown): bigint {
  if (typeof value === 'bigint') {
    if (value < 0n || value > 0x7fff_ffff_ffff_ffffn)
      throw invalidArgument(`${name} must be a 64-bit id >= 0, got ${value}`);
    return value;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw invalidArgument(`${name} must be a non-negative integer id, got ${describe(value)}`);
}

export function checkPath(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) {
    throw invalidArgument(`${name} must be a non-empty file path, got ${describe(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  return `${typeof value} ${String(value)}`;
}
