/**
 * The expected-failures file of the official MCP conformance suite, in the suite's own format
 * (`server:` and `client:` lists of scenario names), with this project's extra rule: every entry
 * carries a reason as a YAML comment, on its line or on the comment lines just above it.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';

import { parse } from 'yaml';

import { isRecord } from '@mcp-envelope/contract';

/** One `server:` entry. */
export interface ExpectedFailure {
  readonly scenario: string;
  /** The comment that explains it (`''` when there is none). */
  readonly reason: string;
}

/**
 * Reads the `server:` entries and their reasons.
 *
 * @param text - the YAML text.
 * @returns the entries in file order.
 * @throws Error when the YAML does not parse or `server` is not a list of names (the suite's own rules).
 */
export function parseExpectedFailures(text: string): ExpectedFailure[] {
  const value: unknown = parse(text);
  if (value === null || value === undefined) return [];
  if (!isRecord(value))
    throw new Error("expected-failures file: expected an object with 'server' and/or 'client' keys");
  const server = value['server'];
  if (server === undefined || server === null) return [];
  if (!Array.isArray(server) || !server.every((entry) => typeof entry === 'string'))
    throw new Error("expected-failures file: 'server' must be a list of scenario names");
  const lines = text.split('\n');
  return server.map((scenario) => {
    const index = lines.findIndex((line) =>
      new RegExp(`^\\s*-\\s*['"]?${scenario.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]?\\s*(#.*)?$`).test(line),
    );
    const parts: string[] = [];
    for (let above = index - 1; above >= 0; above -= 1) {
      const match = /^\s*#\s?(.*)$/.exec(lines[above] ?? '');
      if (match === null) break;
      parts.unshift((match[1] ?? '').trim());
    }
    const inline = index === -1 ? null : /#\s?(.*)$/.exec(lines[index] ?? '');
    if (inline !== null) parts.push((inline[1] ?? '').trim());
    return { scenario, reason: parts.filter((part) => part !== '').join(' ') };
  });
}

/**
 * Reads an expected-failures file.
 *
 * @param path - the file.
 * @returns its `server:` entries.
 * @throws Error when the file cannot be read or parsed.
 */
export function readExpectedFailures(path: string): ExpectedFailure[] {
  return parseExpectedFailures(readFileSync(path, 'utf8'));
}
