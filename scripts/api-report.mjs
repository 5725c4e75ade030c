// Checks (or with --update, rewrites) the API report of every entry point of every workspace
// package: <package>/api/<name>.api.md, made by API Extractor from the built .d.ts files. A
// report that differs from the build fails the check, so a change to a public surface is a
// reviewed change of that file. Run `pnpm api:update` after changing what a package exports.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = new URL('..', import.meta.url).pathname;
const update = process.argv.includes('--update');

function workspacePackages() {
  const nested = readdirSync(join(root, 'packages')).map((name) => join('packages', name));
  return ['contract', ...nested, 'conformance'].map((folder) => join(root, folder));
}

/** Every entry point a package declares types for: `.` is `<name>`, `./testing` is `<name>-testing`. */
function entryPoints(folder) {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const unscoped = manifest.name.replace(/^@[^/]+\//, '');
  return Object.entries(manifest.exports ?? {})
    .filter(([, target]) => typeof target === 'object' && typeof target.types === 'string')
    .map(([subpath, target]) => ({
      folder,
      types: join(folder, target.types),
      report: subpath === '.' ? unscoped : `${unscoped}-${subpath.slice(2).replaceAll('/', '-')}`,
    }));
}

const quiet = { logLevel: 'none', addToApiReportFile: false };
const inReport = { logLevel: 'none', addToApiReportFile: true };

function extractorConfig(entry, temporaryFolder) {
  return ExtractorConfig.prepare({
    packageJsonFullPath: join(entry.folder, 'package.json'),
    configObjectFullPath: undefined,
    configObject: {
      projectFolder: entry.folder,
      mainEntryPointFilePath: entry.types,
      newlineKind: 'lf',
      // The .d.ts files are already checked by the build; only the entry's graph is needed here.
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: [entry.types],
        },
        skipLibCheck: true,
      },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.report}.api.md`,
        reportFolder: join(entry.folder, 'api'),
        reportTempFolder: temporaryFolder,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        // Release tags are not used: everything an entry point exports is public.
        extractorMessageReporting: {
          default: inReport,
          'ae-missing-release-tag': quiet,
          'ae-undocumented': quiet,
          'ae-wrong-input-file-type': { logLevel: 'error' },
        },
        tsdocMessageReporting: { default: quiet },
      },
    },
  });
}

function runEntry(entry, temporaryFolder, compilerState) {
  if (update) mkdirSync(join(entry.folder, 'api'), { recursive: true });
  const result = Extractor.invoke(extractorConfig(entry, temporaryFolder), {
    localBuild: update,
    compilerState,
    messageCallback: (message) => {
      if (message.logLevel !== 'error') message.handled = true;
    },
  });
  const report = relative(root, join(entry.folder, 'api', `${entry.report}.api.md`));
  if (result.errorCount > 0) return `${report}: API Extractor reported ${result.errorCount} error(s)`;
  const warnings = reportWarnings(join(temporaryFolder, `${entry.report}.api.md`));
  if (warnings.length > 0) return `${report} has API Extractor warnings:\n  ${warnings.join('\n  ')}`;
  if (result.apiReportChanged && !update) return `${report} differs from the build`;
  return undefined;
}

/**
 * The warnings API Extractor wrote into a report (`ae-forgotten-export`, `ae-unresolved-link`,
 * ...): each is a public-surface defect, so none may be checked in.
 */
function reportWarnings(reportFile) {
  return readFileSync(reportFile, 'utf8')
    .split('\n')
    .filter((line) => /^\s*\/\/ .*\(ae-[a-z-]+\)/.test(line))
    .map((line) => line.trim());
}

/**
 * Reports left behind by an entry point that a package no longer declares: they would describe
 * an API nobody can import. With --update they are deleted.
 */
function staleReports(entries) {
  const current = new Set(entries.map((entry) => join(entry.folder, 'api', `${entry.report}.api.md`)));
  const folders = [...new Set(entries.map((entry) => join(entry.folder, 'api')))].filter((folder) =>
    existsSync(folder),
  );
  const stale = folders.flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith('.api.md'))
      .map((name) => join(folder, name))
      .filter((file) => !current.has(file)),
  );
  if (update) for (const file of stale) rmSync(file);
  return update
    ? []
    : stale.map((file) => `${relative(root, file)} reports an entry point the package no longer declares`);
}

const temporaryFolder = mkdtempSync(join(tmpdir(), 'api-report-'));
try {
  const entries = workspacePackages().flatMap(entryPoints);
  // One TypeScript program for every entry point: the packages share most of their .d.ts graph.
  const compilerState = CompilerState.create(extractorConfig(entries[0], temporaryFolder), {
    additionalEntryPoints: entries.map((entry) => entry.types),
  });
  const problems = [
    ...staleReports(entries),
    ...entries
      .map((entry) => runEntry(entry, temporaryFolder, compilerState))
      .filter((problem) => problem !== undefined),
  ];
  if (problems.length > 0) {
    console.error(
      `${problems.join('\n')}\nFix the warnings; if the public API changed on purpose, run \`pnpm api:update\` and commit the reports.`,
    );
    process.exitCode = 1;
  }
} finally {
  rmSync(temporaryFolder, { recursive: true, force: true });
}
