/** How an MCP tool answers: JSON as text and as structured content, or an error in the same shape. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** An answer as JSON text and as structured content (which clients check against the tool's output schema). */
export function structured(output: object, isError?: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(output) }],
    structuredContent: { ...output },
    ...(isError === undefined ? {} : { isError }),
  };
}

/**
 * A tool's error, in the shape every tool answers one: JSON with an `error` sentence, as text and as
 * structured content (the search tools add their empty results beside it).
 */
export function toolError(message: string): CallToolResult {
  return structured({ error: message }, true);
}
