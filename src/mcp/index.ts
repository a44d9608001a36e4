/** `ocvector/mcp`: the MCP server, kept out of the main entry so that the library does not load the MCP SDK. */
export { createCodebaseMcpServer, createCodebaseMcpService } from './server.js';
export type { CodebaseMcpServer, CodebaseMcpServerOptions, CodebaseMcpService } from './server.js';
export { serveMcpOverHttp } from './http.js';
export type { McpHttpOptions, McpHttpServer } from './http.js';
export { parseTokens, readTokensFile, TokenTable } from './tokens.js';
export type { ReadTokensOptions } from './tokens.js';
