/**
 * The servers the gate runs, as one list of package names: each package ships a descriptor
 * `conformance/server.json` (see descriptor.ts). Adding a server to the gate is its package plus
 * one line here.
 *
 * @packageDocumentation
 */

/**
 * The packages whose servers the gate runs, in report order. An entry may also be the path of a
 * package folder (absolute, or starting with `.`), which is how a test gates a server of its own.
 */
export const GATE_SERVER_PACKAGES: readonly string[] = Object.freeze([
  '@mcp-envelope/sp-adapter',
  '@mcp-envelope/ads-adapter',
  '@mcp-envelope/github-adapter',
]);
