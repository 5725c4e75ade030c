// `pnpm typecheck`: type-checks every workspace package as `tsc --noEmit -p <package>/tsconfig.json`
// would (sources, tests, benchmarks), in one process. The packages' programs share the files they
// all read (Node's, the SDK's, core's declarations): each is parsed once, not once a package, which
// costs about a third of the CPU of one tsc a package. Prints the diagnostics as tsc does; exits 1
// on any. `pnpm --filter <package> typecheck` still runs tsc on one package.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;

/** Every workspace package's tsconfig.json, the one its own `typecheck` script passes to tsc. */
function workspaceConfigs() {
  const nested = readdirSync(join(root, 'packages')).map((name) => join('packages', name));
  return ['contract', ...nested, 'conformance'].map((folder) => join(root, folder, 'tsconfig.json'));
}

/**
 * A compiler host that hands every program the same parsed file for the same path and parse
 * settings, as TypeScript's own language service does across projects; each program still
 * resolves modules and checks types with its own options.
 */
function sharedHost(options, parsed) {
  const host = ts.createCompilerHost(options);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, settings, onError, fresh) => {
    const key = `${fileName}\0${JSON.stringify(settings)}`;
    if (fresh || !parsed.has(key)) parsed.set(key, parse(fileName, settings, onError, fresh));
    return parsed.get(key);
  };
  return host;
}

/** The diagnostics `tsc --noEmit -p configPath` reports: the configuration's, then the program's. */
function check(configPath, parsed) {
  const configErrors = [];
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => configErrors.push(diagnostic) },
  );
  if (config === undefined) return configErrors;
  const host = sharedHost(config.options, parsed);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  return [...configErrors, ...config.errors, ...ts.getPreEmitDiagnostics(program)];
}

const parsed = new Map();
const configs = workspaceConfigs();
const diagnostics = configs.flatMap((config) => check(config, parsed));
const formatHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };
const format = process.stderr.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
if (diagnostics.length > 0) process.stderr.write(format(diagnostics, formatHost));
console.log(`typecheck: ${configs.length} packages, ${diagnostics.length} error(s)`);
process.exit(diagnostics.length > 0 ? 1 : 0);
