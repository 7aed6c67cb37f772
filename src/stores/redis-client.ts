/**
 * The one way the Redis store talks to Redis: a node-redis (v4 to v6) or ioredis (v5, v6) client,
 * recognised by its shape (ioredis has `call`, node-redis `sendCommand`), so that the SDK imports
 * neither. Scripts run by `EVALSHA`, and by `EVAL` when Redis answers `NOSCRIPT` (a restart, a
 * failover or `SCRIPT FLUSH` emptied its script cache).
 */
import { PaymentsError } from '../core/errors.js';

/** The part of a node-redis client (v4 to v6, `createClient()`) that `redisStore` uses. */
export interface NodeRedisStoreClient {
  /** Sends one raw command, e.g. `['EVALSHA', sha, '1', key, ...args]`. */
  sendCommand(args: string[]): Promise<unknown>;
  /** `false` before `connect()` and after `close()`/`destroy()`. */
  readonly isOpen: boolean;
  /** `false` while (re)connecting: commands wait in the client's offline queue meanwhile. */
  readonly isReady?: boolean;
}

/** The part of an ioredis client (v5, v6, `new Redis()`) that `redisStore` uses. */
export interface IORedisStoreClient {
  /** Sends one raw command, e.g. `call('EVALSHA', sha, 1, key, ...args)`. */
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
  /** `ready` when connected; `end` once closed for good. */
  readonly status: string;
}

/** A client `redisStore` accepts. */
export type RedisStoreClient = NodeRedisStoreClient | IORedisStoreClient;

/** A Lua script and its SHA-1, which `EVALSHA` names it by. */
export interface RedisScript {
  /** The Lua source, which `EVAL` sends. */
  readonly source: string;
  /** Hex SHA-1 of `source`, computed once (Web Crypto: no `node:` import). */
  sha(): Promise<string>;
}

/** A script for {@link RedisCommands.evalScript}. */
export function redisScript(source: string): RedisScript {
  let sha: Promise<string> | undefined;
  return {
    source,
    sha() {
      if (sha === undefined)
        sha = crypto.subtle
          .digest('SHA-1', new TextEncoder().encode(source))
          .then((digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join(''));
      return sha;
    },
  };
}

/** What the store needs of a client. */
export interface RedisCommands {
  /** Sends one command. */
  command(args: string[]): Promise<unknown>;
  /** Runs `script` on `keys` and `args`: `EVALSHA`, then `EVAL` when the script is not cached. */
  evalScript(script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** Why nothing can be sent at all (a closed client), or `undefined`. */
  closed(): string | undefined;
  /** Why a call may wait (a client reconnecting), for the timeout's message, or `undefined`. */
  waiting(): string | undefined;
}

/** The commands of `client`, or a {@link PaymentsError} naming `caller` when it is neither client. */
export function redisCommands(client: unknown, caller: string): RedisCommands {
  const c = client as Partial<IORedisStoreClient & NodeRedisStoreClient> | null;
  if (isCluster(c)) {
    throw new PaymentsError(
      `${caller}: Redis Cluster is not supported (a claim of many keys is one script, which a cluster runs only when every key is in one slot): pass a client of one Redis server.`,
    );
  }
  let command: (args: string[]) => Promise<unknown>;
  let closed: () => string | undefined;
  let waiting: () => string | undefined;
  if (c !== null && typeof c === 'object' && typeof c.call === 'function') {
    const io = c as IORedisStoreClient;
    command = ([name, ...args]) => io.call(name as string, ...args);
    closed = () => (io.status === 'end' ? 'the ioredis client is closed (quit() or disconnect() was called)' : undefined);
    waiting = () => (io.status === 'ready' ? undefined : `the ioredis client is ${io.status}`);
  } else if (c !== null && typeof c === 'object' && typeof c.sendCommand === 'function') {
    const node = c as NodeRedisStoreClient;
    command = (args) => node.sendCommand(args);
    closed = () => (node.isOpen === false ? 'the node-redis client is not open (call `await client.connect()` first)' : undefined);
    waiting = () => (node.isReady === false ? 'the node-redis client is reconnecting' : undefined);
  } else {
    throw new PaymentsError(`${caller}: pass a node-redis (createClient()) or ioredis (new Redis()) client.`);
  }
  return {
    command,
    closed,
    waiting,
    async evalScript(script, keys, args) {
      const rest = [String(keys.length), ...keys, ...args];
      try {
        return await command(['EVALSHA', await script.sha(), ...rest]);
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
        // EVAL runs it and caches it again for the next EVALSHA.
        return command(['EVAL', script.source, ...rest]);
      }
    },
  };
}

/** ioredis's `Cluster` says so; node-redis's cluster (v4 to v6) is told by its slot map. */
function isCluster(c: unknown): boolean {
  if (c === null || typeof c !== 'object') return false;
  const o = c as Record<string, unknown>;
  return o.isCluster === true || typeof o.getSlotMaster === 'function' || typeof o.getSlotRandomNode === 'function';
}
