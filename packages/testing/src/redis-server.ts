/**
 * A throwaway `redis-server` on a free 127.0.0.1 port, for tests and benchmarks of the Redis
 * rate-limit store: nothing persisted (`--save ''`, `--appendonly no`), listening on loopback
 * only. `restart` stops it and starts a fresh one on the same port, as an outage does.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** The executable (default `redis-server`, found on `PATH`; Debian installs `/usr/bin/redis-server`). */
  readonly command?: string;
  /** Require this password (`--requirepass`); {@link RedisServer.url} then carries it. */
  readonly password?: string;
  /** How long to wait for the server to answer `PING`, in ms (default 5000). */
  readonly startTimeoutMs?: number;
}

/** A running `redis-server`. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` (`redis://:<password>@127.0.0.1:<port>` with a password), for `MCP_RATE_LIMIT_STORE`. */
  readonly url: string;
  /** The loopback port it listens on. */
  readonly port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 2 s) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
  /** Stops the server, then starts a new one on the same port (empty: nothing is persisted) and waits until it answers. */
  restart(): Promise<void>;
}

/** Asks the OS for a free loopback port. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) =>
    probe.close(() => {
      resolve();
    }),
  );
  return port;
}

/** Resolves true when a `PING` on `port` is answered within `timeoutMs` (`+PONG`, or `-NOAUTH` behind a password). */
function pingOnce(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => {
      finish(false);
    });
    socket.once('error', () => {
      finish(false);
    });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) finish(answer.startsWith('+PONG') || answer.startsWith('-NOAUTH'));
    });
  });
}

/** Polls `PING` until answered; throws after `timeoutMs` or when the process has exited. */
async function waitUntilAnswering(child: ChildProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server on port ${port} exited (${child.exitCode ?? child.signalCode}) before answering`);
    if (await pingOnce(port, 200)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

/** How one server is started (the same on a restart). */
interface SpawnPlan {
  readonly command: string;
  readonly port: number;
  readonly password: string | undefined;
  readonly timeoutMs: number;
}

/** The error for an executable that is not installed: what to install, on the two usual systems. */
function missingRedisServer(command: string, cause: Error): Error {
  return new Error(
    `${command} was not found on PATH; the Redis rate-limit tests and bench start a real one. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or pass its path as options.command.`,
    { cause },
  );
}

/** Spawns the server on its port and waits until it answers. */
async function spawnRedis({ command, port, password, timeoutMs }: SpawnPlan): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (password !== undefined) args.push('--requirepass', password);
  const child = spawn(command, [...args, '--daemonize', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' ? missingRedisServer(command, error) : error);
    });
  });
  await spawned;
  await waitUntilAnswering(child, port, timeoutMs);
  return child;
}

/** Sends SIGTERM (SIGKILL after 2 s) and resolves when the process has exited. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts `redis-server` on a free 127.0.0.1 port with nothing persisted, and waits until it
 * answers `PING`.
 *
 * @param options - the executable, an optional password, the start timeout.
 * @returns the running server: its URL and port, `stop` and `restart`.
 * @throws when the executable is missing (ENOENT), exits early, or does not answer in time.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const plan: SpawnPlan = {
    command: options.command ?? 'redis-server',
    port: await freePort(),
    password: options.password,
    timeoutMs: options.startTimeoutMs ?? 5000,
  };
  const { port, password } = plan;
  let child = await spawnRedis(plan);
  const stop = (): Promise<void> => stopProcess(child);
  const auth = password === undefined ? '' : `:${encodeURIComponent(password)}@`;
  return {
    url: `redis://${auth}127.0.0.1:${port}`,
    port,
    stop,
    restart: async () => {
      await stop();
      child = await spawnRedis(plan);
    },
  };
}
