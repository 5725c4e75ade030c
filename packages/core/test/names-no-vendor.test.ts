import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('../src', import.meta.url));

/**
 * What core must not name: the vendor, its login service and the servers' own kinds. `lwa` is
 * looked for as a word part (`lwa/`, `LWA_`, `LwaError`, `classifyLwa`), not inside English words
 * such as "always".
 */
const FORBIDDEN: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'amzn', pattern: /amzn/i },
  { name: 'amazon', pattern: /amazon/i },
  { name: 'lwa', pattern: /(?<![a-z])lwa|Lwa|LWA/ },
  { name: 'Atza', pattern: /atza/i },
  { name: 'sp_api', pattern: /sp_api/i },
  { name: 'ads_api', pattern: /ads_api/i },
  { name: 'x-amz', pattern: /x-amz/i },
  { name: 'SP-API', pattern: /sp-api/i },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/** Every `file:line: name` where a source line names one of {@link FORBIDDEN}. */
function mentions(files: readonly string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        FORBIDDEN.filter(({ pattern }) => pattern.test(line)).map(
          ({ name }) => `${relative(SOURCE, file)}:${index + 1}: ${name}`,
        ),
      ),
  );
}

describe('core names no server and no vendor', () => {
  it('no file under packages/core/src mentions amzn, amazon, lwa, Atza, sp_api, ads_api, x-amz or SP-API', () => {
    const files = sourceFiles(SOURCE);
    expect(files.length).toBeGreaterThan(20);
    expect(mentions(files)).toEqual([]);
  });

  it('the check finds each name, in any case, and leaves ordinary words alone', () => {
    const lines = [
      'x-amzn-RateLimit',
      'the Amazon API',
      'import { LwaError }',
      "'lwa'",
      'LWA_CLIENT_ID',
      'Atza|token',
      'SP_API_HTTP_400',
      'ads_api_client',
      'X-Amz-Retry-After',
      'an SP-API operation',
    ];
    expect(lines.map((line) => FORBIDDEN.filter(({ pattern }) => pattern.test(line)).map(({ name }) => name))).toEqual([
      ['amzn', 'x-amz'],
      ['amazon'],
      ['lwa'],
      ['lwa'],
      ['lwa'],
      ['Atza'],
      ['sp_api'],
      ['ads_api'],
      ['x-amz'],
      ['SP-API'],
    ]);
    expect(FORBIDDEN.some(({ pattern }) => pattern.test('it always answers; the flaws are known'))).toBe(false);
  });
});
