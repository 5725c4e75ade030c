// What `npm test` needs on the machine beyond the packages it installs: Node.js 20.19 or newer and
// a `redis-server` on PATH (the rate limiter's Redis tests and bench start a real one). Run first,
// before the install, so a machine without them is told in its first seconds what to install
// instead of failing minutes later in the middle of a test suite. Plain Node, no dependency:
// nothing is installed yet when it runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MINIMUM_NODE = [20, 19];

/** The Node.js version as [major, minor]. */
function nodeVersion() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return [major, minor];
}

/** Whether `command --version` runs (found on PATH and executable). */
function runs(command) {
  const result = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/**
 * One line for each prerequisite this machine lacks, naming it and how to install it; empty when
 * nothing is missing.
 *
 * @param {{ redis?: boolean }} [needs] - `redis: false` leaves `redis-server` out.
 * @returns {string[]}
 */
export function missingPrerequisites(needs = {}) {
  const missing = [];
  const [major, minor] = nodeVersion();
  if (major < MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor < MINIMUM_NODE[1]))
    missing.push(
      `Node.js ${MINIMUM_NODE.join('.')} or newer is needed (this is ${process.versions.node}): install it from your package manager or nodejs.org.`,
    );
  if (needs.redis !== false && !runs('redis-server'))
    missing.push(
      'redis-server is needed on PATH (the rate limiter tests start a real one on 127.0.0.1): Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis.',
    );
  return missing;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = missingPrerequisites();
  for (const line of missing) console.error(`missing prerequisite: ${line}`);
  if (missing.length > 0) process.exit(1);
}
