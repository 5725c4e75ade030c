/**
 * `validate`: checks envelope files and fixtures against the contract's schema with the contract
 * package's own validators (`validateEnvelope`, `validateMeta`).
 *
 * @packageDocumentation
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { ERROR_ENVELOPE_SCHEMA, isRecord, validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import type { EnvelopeValidation, MetaValidation } from '@mcp-envelope/contract';

import { jsonTypeOf } from './json-schema.js';
import type { EnvelopeVersion, FileResult, FileShape, FileViolation, ValidateReport } from './report-types.js';

/** What checking one parsed document found. */
export interface DocumentCheck {
  readonly shape: FileShape;
  readonly violations: FileViolation[];
  /** The envelope version of the envelope it holds, when it states one the contract knows. */
  readonly version?: EnvelopeVersion;
}

/** The envelope's required field names, read from the contract's schema (used to recognise a bare envelope). */
const ENVELOPE_FIELDS: readonly string[] = Array.isArray(ERROR_ENVELOPE_SCHEMA['required'])
  ? (ERROR_ENVELOPE_SCHEMA['required'] as unknown[]).filter((name): name is string => typeof name === 'string')
  : [];

function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === undefined ? error.message : `${code}: ${error.message}`;
  }
  return String(error);
}

/** The violations of one envelope and, when it states one, its version. */
function checkEnvelope(prefix: string, value: unknown): DocumentCheck & { shape: 'envelope' } {
  const validation = validateEnvelope(value);
  const version = validation.version;
  return {
    shape: 'envelope',
    violations: violations(prefix, validation),
    ...(version === undefined ? {} : { version }),
  };
}

function violations(prefix: string, validation: EnvelopeValidation | MetaValidation): FileViolation[] {
  if (validation.valid) return [];
  return validation.errors.map((error) => ({ path: `${prefix}${error.path}`, reason: error.message }));
}

function responseMeta(
  response: Record<string, unknown>,
): { found: true; path: string; value: unknown } | { found: false } {
  if (Object.hasOwn(response, '_meta')) return { found: true, path: '/response/_meta', value: response['_meta'] };
  const structured = response['structuredContent'];
  if (isRecord(structured) && Object.hasOwn(structured, '_meta')) {
    return { found: true, path: '/response/structuredContent/_meta', value: structured['_meta'] };
  }
  return { found: false };
}

function checkFixture(value: Record<string, unknown>): DocumentCheck {
  const found: FileViolation[] = [];
  const hasEnvelope = Object.hasOwn(value, 'envelope');
  const hasResponse = Object.hasOwn(value, 'response');
  const envelope = hasEnvelope ? checkEnvelope('/envelope', value['envelope']) : undefined;
  if (envelope !== undefined) found.push(...envelope.violations);
  if (hasResponse) {
    const response = value['response'];
    if (!isRecord(response))
      found.push({ path: '/response', reason: `response is ${jsonTypeOf(response)}, not an object` });
    else {
      const meta = responseMeta(response);
      if (!meta.found) found.push({ path: '/response', reason: 'response fixture carries no _meta' });
      else found.push(...violations(meta.path, validateMeta(meta.value)));
    }
  }
  if (!hasEnvelope && !hasResponse) found.push({ path: '', reason: 'fixture has neither "envelope" nor "response"' });
  return {
    shape: hasEnvelope ? 'envelope fixture' : hasResponse ? 'response fixture' : 'unknown',
    violations: found,
    ...(envelope?.version === undefined ? {} : { version: envelope.version }),
  };
}

/**
 * Classifies one parsed JSON value and validates it: a fixture (`{ _fixture_meta, envelope }` or
 * `{ _fixture_meta, response }`, whose `_meta` is checked with `validateMeta`) or a bare envelope
 * (an object carrying at least one envelope field). Implements CONTRACT.md "Conformance" rules 1-4
 * for files.
 *
 * @param value - the parsed file content.
 * @returns the shape it was taken for, its violations (JSON pointers into the file) and, for an
 * envelope that states `_envelope_version` 1 or 2, that version.
 */
export function checkDocument(value: unknown): DocumentCheck {
  if (!isRecord(value)) {
    return {
      shape: 'unknown',
      violations: [{ path: '', reason: `JSON value is ${jsonTypeOf(value)}, not an envelope or fixture object` }],
    };
  }
  if (Object.hasOwn(value, '_fixture_meta')) return checkFixture(value);
  if (!ENVELOPE_FIELDS.some((field) => Object.hasOwn(value, field))) {
    return {
      shape: 'unknown',
      violations: [
        { path: '', reason: 'object is neither an envelope (no envelope field) nor a fixture (no _fixture_meta)' },
      ],
    };
  }
  return checkEnvelope('', value);
}

async function checkFile(path: string): Promise<FileResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return {
      path,
      result: 'FAIL',
      shape: 'unknown',
      violations: [{ path: '', reason: `cannot read file: ${errorMessage(error)}` }],
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return {
      path,
      result: 'FAIL',
      shape: 'unknown',
      violations: [{ path: '', reason: `invalid JSON: ${errorMessage(error)}` }],
    };
  }
  const checked = checkDocument(parsed);
  return { path, result: checked.violations.length === 0 ? 'PASS' : 'FAIL', ...checked };
}

/** Lists the `*.json` files under a folder, recursively, sorted; symlinked folders are not followed. */
async function jsonFilesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await jsonFilesUnder(path)));
    else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.toLowerCase().endsWith('.json')) files.push(path);
  }
  return files;
}

function failure(path: string, reason: string): FileResult {
  return { path, result: 'FAIL', shape: 'unknown', violations: [{ path: '', reason }] };
}

async function expandPath(path: string): Promise<{ files: string[] } | { failure: FileResult }> {
  try {
    const info = await stat(path);
    if (!info.isDirectory()) return { files: [path] };
    const files = await jsonFilesUnder(path);
    return files.length === 0 ? { failure: failure(path, 'folder contains no .json files') } : { files };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      failure: failure(path, code === 'ENOENT' ? 'path does not exist' : `cannot read path: ${errorMessage(error)}`),
    };
  }
}

/**
 * Validates files and folders: each folder is searched recursively for `*.json` files; each file
 * is read, parsed and checked with `checkDocument`. A path that does not exist, a folder
 * without JSON files, an unreadable file, invalid JSON and a value of the wrong shape each give a
 * FAIL entry; nothing throws. A file reached twice is checked once.
 *
 * @param paths - file and folder paths (relative to the working directory or absolute).
 * @returns the report: one entry per file (or per failing argument), in argument order, and totals.
 */
export async function validatePaths(paths: readonly string[]): Promise<ValidateReport> {
  const files: FileResult[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const expanded = await expandPath(path);
    if ('failure' in expanded) {
      files.push(expanded.failure);
      continue;
    }
    for (const file of expanded.files) {
      const key = resolve(file);
      if (seen.has(key)) continue;
      seen.add(key);
      files.push(await checkFile(file));
    }
  }
  const passed = files.filter((file) => file.result === 'PASS').length;
  return { command: 'validate', files, summary: { passed, failed: files.length - passed } };
}
