/** `ocvector/mcp`: the MCP server, kept out of the main entry so that the library does not load the MCP SDK. */
export { createCodebaseMcpServer } from './server.js';
export type { CodebaseMcpServer, CodebaseMcpServerOptions } from './server.js';
