// Preloaded into every Node process of a test run (NODE_OPTIONS="--import=<url of this file>"):
// refuses any connection, datagram or DNS lookup aimed outside the loopback range before a packet
// leaves, and appends one JSON line per attempt to the file named by LOOPBACK_GUARD_LOG.
//
// The hooks sit on the prototypes and module objects every client path goes through: net.connect,
// tls.connect, http(s) agents and fetch (undici) all end in net.Socket.prototype.connect. Each
// guarded process also records one "guarded" line, so a test can show its children were covered.
import dgram from 'node:dgram';
import dns from 'node:dns';
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const logPath = process.env.LOOPBACK_GUARD_LOG;

function record(entry) {
  if (logPath === undefined || logPath === '') return;
  appendFileSync(logPath, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
}

/** Whether a host names the loopback range (an unset host means localhost to Node). */
function isLoopbackHost(host) {
  if (host === undefined || host === null || host === '') return true;
  const name = String(host)
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (net.isIPv4(name)) return name.startsWith('127.');
  if (net.isIPv6(name)) return name === '::1' || name === '0:0:0:0:0:0:0:1' || name.startsWith('::ffff:127.');
  return false;
}

function refusal(what, host, port) {
  const error = new Error(
    `loopback guard: refused ${what} to ${String(host)}${port === undefined ? '' : `:${String(port)}`} (only 127.0.0.0/8, ::1 and localhost are allowed)`,
  );
  error.code = 'ENETUNREACH';
  return error;
}

/** The host and port (or pipe path) a net.Socket#connect call aims at, whichever overload it uses. */
function socketTarget(args) {
  // net.connect hands Socket#connect its already-normalized [options, listener] array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object')
    return first.path === undefined ? { host: first.host, port: first.port } : { path: first.path };
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : undefined, port: first };
}

const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const target = socketTarget(args);
  if (target.path !== undefined || isLoopbackHost(target.host)) return originalConnect.apply(this, args);
  record({ event: 'refused', via: 'net.Socket.connect', host: String(target.host), port: target.port ?? null });
  const error = refusal('a connection', target.host, target.port);
  process.nextTick(() => this.destroy(error));
  return this;
};

function datagramAddress(args) {
  const rest = args.slice(1).filter((value) => typeof value !== 'function');
  return rest.find((value) => typeof value === 'string' && !/^\d+$/.test(value));
}

const originalSend = dgram.Socket.prototype.send;
dgram.Socket.prototype.send = function guardedSend(...args) {
  const address = datagramAddress(args);
  if (isLoopbackHost(address)) return originalSend.apply(this, args);
  record({ event: 'refused', via: 'dgram.Socket.send', host: String(address), port: null });
  const callback = args.find((value) => typeof value === 'function');
  const error = refusal('a datagram', address, undefined);
  process.nextTick(() => (callback === undefined ? this.emit('error', error) : callback(error)));
  return undefined;
};

const originalDgramConnect = dgram.Socket.prototype.connect;
dgram.Socket.prototype.connect = function guardedDgramConnect(port, address, callback) {
  const host = typeof address === 'string' ? address : undefined;
  if (isLoopbackHost(host))
    return originalDgramConnect.apply(
      this,
      [port, address, callback].filter((value) => value !== undefined),
    );
  record({ event: 'refused', via: 'dgram.Socket.connect', host: String(host), port });
  throw refusal('a datagram connection', host, port);
};

const LOOKUPS = [
  'lookup',
  'resolve',
  'resolve4',
  'resolve6',
  'resolveAny',
  'resolveCname',
  'resolveMx',
  'resolveNs',
  'resolveSrv',
  'resolveTxt',
];

for (const name of LOOKUPS) {
  const original = dns[name];
  dns[name] = function guardedLookup(hostname, ...rest) {
    if (isLoopbackHost(hostname)) return original.call(this, hostname, ...rest);
    record({ event: 'refused', via: `dns.${name}`, host: String(hostname), port: null });
    const callback = rest.find((value) => typeof value === 'function');
    const error = refusal('a DNS lookup', hostname, undefined);
    error.code = 'ENOTFOUND';
    if (callback !== undefined) process.nextTick(() => callback(error));
    return undefined;
  };
  const originalPromise = dns.promises[name];
  dns.promises[name] = function guardedPromiseLookup(hostname, ...rest) {
    if (isLoopbackHost(hostname)) return originalPromise.call(this, hostname, ...rest);
    record({ event: 'refused', via: `dns.promises.${name}`, host: String(hostname), port: null });
    const error = refusal('a DNS lookup', hostname, undefined);
    error.code = 'ENOTFOUND';
    return Promise.reject(error);
  };
}
// `import { lookup } from 'node:dns'` elsewhere must see the guarded functions too.
syncBuiltinESMExports();

record({ event: 'guarded', argv: process.argv.slice(1) });
