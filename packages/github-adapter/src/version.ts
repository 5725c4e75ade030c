/**
 * This package's version, read once from its `package.json`.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';

/** This package's version (semver), e.g. `0.1.0`. */
export const GITHUB_ADAPTER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
