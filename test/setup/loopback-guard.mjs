// Refuses every outbound connection that is not to this machine, for test processes and the
// processes they spawn (loaded with `node --import`). Plain JavaScript so it loads before any
// TypeScript loader. Sockets to loopback addresses and local (IPC) paths pass unchanged.
import net from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback']);

/** @param {unknown} host */
export function isLoopbackHost(host) {
  if (host === undefined || host === null || host === '') return true; // Node's default is localhost
  const name = String(host).toLowerCase().replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(name)) return true;
  if (net.isIPv4(name)) return name.startsWith('127.');
  if (net.isIPv6(name)) return name === '::1' || /^::ffff:127\./.test(name);
  return false;
}

function blocked(host) {
  return Object.assign(new Error(`outbound network is blocked in tests (tried ${host})`), { code: 'ENETUNREACH' });
}

/** The options object of a `socket.connect(...)` call, when it has one. */
function optionsOf(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  return typeof first === 'object' && first !== null ? first : undefined;
}

/** The host a `socket.connect(...)` call names, or undefined for IPC paths. */
function targetHost(args) {
  const options = optionsOf(args);
  if (options) return options.path ? undefined : (options.host ?? 'localhost');
  const [first, second] = Array.isArray(args[0]) ? args[0] : args;
  if (typeof first === 'string' && !/^\d+$/.test(first)) return undefined; // a socket path
  return typeof second === 'string' ? second : 'localhost';
}

/** A custom resolver (as pinned-address clients use) whose answers must be loopback too. */
function guardedLookup(lookup) {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      if (addresses.some((a) => !isLoopbackHost(a))) return callback(blocked(hostname));
      return callback(null, address, family);
    });
}

const GUARDED = Symbol.for('farebox.loopbackGuard');
if (!globalThis[GUARDED]) {
  globalThis[GUARDED] = true;
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const host = targetHost(args);
    const options = optionsOf(args);
    if (host !== undefined && !isLoopbackHost(host)) {
      if (options && typeof options.lookup === 'function') {
        const guarded = { ...options, lookup: guardedLookup(options.lookup) };
        // net marks its normalized argument arrays with a private symbol: edit them in place.
        if (Array.isArray(args[0])) args[0][0] = guarded;
        else args[0] = guarded;
        return connect.apply(this, args);
      }
      process.nextTick(() => this.destroy(blocked(host)));
      return this;
    }
    return connect.apply(this, args);
  };
}
