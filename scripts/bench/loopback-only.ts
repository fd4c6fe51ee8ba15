import net from 'node:net';

/**
 * Preloaded (`node --import <this> …`) into every server process of the benchmark that would
 * otherwise listen on all interfaces (the web entry, the Portkey peer): each TCP listen is
 * bound to 127.0.0.1, whatever host it asked for, so the benchmark never opens a port beyond
 * loopback. Listens on a path (Unix socket) or an existing handle are left alone.
 */

type ListenArgs = Parameters<net.Server['listen']>;

const LOOPBACK = '127.0.0.1';
const originalListen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(this: net.Server, ...args: unknown[]) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback]): put the host in second place.
    if (args.length > 1 && (typeof args[1] === 'string' || args[1] === undefined || args[1] === null)) args[1] = LOOPBACK;
    else args.splice(1, 0, LOOPBACK);
  } else if (typeof first === 'object' && first !== null && 'port' in first && !('path' in first)) {
    args[0] = { ...first, host: LOOPBACK };
  }
  return originalListen.apply(this, args as ListenArgs);
} as net.Server['listen'];
