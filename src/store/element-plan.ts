/**
 * What writing a file's new documents does to the elements it has, in both stores: an
 * element whose document is unchanged keeps its row and vector (only its lines and bytes may
 * move), the rest are added, and what is left of the old ones is removed. Copies of one
 * document pair up in order.
 */
import type { ElementDocument } from '../vector/document.js';
import type { LineBytes } from './rows.js';

/** An element as a store holds it: enough to keep it. */
export interface PlacedElement {
  id: number;
  hash: string;
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
}

export interface ElementPlan {
  /** The elements kept, where they are now, with the document each keeps. */
  kept: (PlacedElement & { document: ElementDocument })[];
  /** Those of them whose lines or bytes moved. */
  moved: PlacedElement[];
  /** New documents, in the file's order, with their bytes. */
  added: { document: ElementDocument; bytes: { start: number; end: number } }[];
  /** The ids of the old elements no document keeps. */
  removed: number[];
}

/** A line range whose bytes were not measured (an element written without its file's line starts). */
const UNKNOWN_BYTES = { start: -1, end: -1 } as const;

export function planElements(
  old: readonly PlacedElement[],
  documents: readonly ElementDocument[],
  lineBytes: LineBytes | undefined,
): ElementPlan {
  const byHash = new Map<string, PlacedElement[]>();
  for (const element of old) {
    const same = byHash.get(element.hash);
    if (same) same.push(element);
    else byHash.set(element.hash, [element]);
  }
  const plan: ElementPlan = { kept: [], moved: [], added: [], removed: [] };
  for (const document of documents) {
    const e = document.element;
    const bytes = lineBytes?.range(e.startLine, e.endLine) ?? UNKNOWN_BYTES;
    const reusable = byHash.get(document.hash)?.pop();
    if (!reusable) {
      plan.added.push({ document, bytes });
      continue;
    }
    const now = { ...reusable, startLine: e.startLine, endLine: e.endLine, startByte: bytes.start, endByte: bytes.end };
    plan.kept.push({ ...now, document });
    // Lines above it may have changed length without changing in number: its bytes moved too.
    if (
      reusable.startLine !== now.startLine ||
      reusable.endLine !== now.endLine ||
      reusable.startByte !== now.startByte ||
      reusable.endByte !== now.endByte
    )
      plan.moved.push(now);
  }
  for (const rows of byHash.values()) for (const row of rows) plan.removed.push(row.id);
  return plan;
}
