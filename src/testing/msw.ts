/**
 * msw handlers for the mock service, for code that cannot take a custom `fetch`.
 *
 * Why this shape: msw is an OPTIONAL peer dependency of `payments-sdk/testing` only, so a merchant
 * who plugs `mock.fetch` into the client must not need msw installed. A static `import 'msw'`
 * anywhere in this entry would make msw required (ESM fails at link time, CJS at `require`). A
 * dynamic `import()` would make `mock.handlers` a promise, which does not fit
 * `setupServer(...mock.handlers)`. So msw is loaded lazily and synchronously, the first time
 * `mock.handlers` is read, through `require` made by `module.createRequire`, reached with
 * `process.getBuiltinModule` (Node ≥ 22.3, Bun, Deno) instead of a static `node:` import that would
 * put Node built-ins into the graph of `createMockService()`. It is rooted at the working directory,
 * which is where the test's own `import 'msw'` is resolved from, so both get the same copy of msw.
 * Node ≥ 22.12 can `require()` msw, which is ESM-only. Both the ESM and the CJS builds take the
 * same path (no `import.meta`, no bundler `require` shim). Where that cannot work (a browser, a
 * runtime without `process.getBuiltinModule`), `mock.createHandlers(await import('msw'))` builds the
 * same handlers from a module the caller loaded. No type of msw is imported either: the published
 * `.d.ts` of this entry must compile where msw is not installed (see {@link MswHandler}).
 */
import { MockServiceError } from './mock-errors.js';

/**
 * An msw request handler, as `setupServer(...)` and `server.use(...)` take it. msw's handler classes
 * have private members, so only msw's own type is assignable to them, and naming it would make the
 * published types fail to compile without msw: the type is left open here. The exact msw type comes
 * back from {@link MockService.createHandlers}, which takes the msw module.
 */
// biome-ignore lint/suspicious/noExplicitAny: msw's nominal handler type cannot be named without msw installed.
export type MswHandler = any;

/** The part of the `msw` module the kit uses: `http`. Pass `await import('msw')`. */
export interface MswModule<H = MswHandler> {
  http: {
    /** msw's `http.all`: a handler for every method, with a predicate on the request. */
    all: (predicate: (args: { request: Request }) => boolean, resolver: (info: { request: Request }) => Promise<Response>) => H;
  };
}

let loaded: MswModule | undefined;

type NodeProcess = { getBuiltinModule?: (id: string) => unknown; cwd?: () => string };
type NodeModuleApi = { createRequire: (filename: string) => (id: string) => unknown };

/** Loads msw synchronously (see the file comment), or throws an error that says what to do. */
export function requireMsw(): MswModule {
  if (loaded) return loaded;
  const proc = (globalThis as { process?: NodeProcess }).process;
  const nodeModule = proc?.getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
  if (!nodeModule?.createRequire || !proc?.cwd) {
    throw new MockServiceError(
      "mock.handlers cannot load msw synchronously in this runtime. Use mock.createHandlers(await import('msw')), or mock.fetch (no msw needed).",
    );
  }
  try {
    const msw = nodeModule.createRequire(`${proc.cwd()}/payments-sdk-testing.js`)('msw') as MswModule;
    if (typeof msw?.http?.all !== 'function') throw new Error('the module has no http.all');
    loaded = msw;
    return msw;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
      throw new MockServiceError(
        'mock.handlers needs msw, an optional peer dependency of payments-sdk/testing: npm install --save-dev msw@^3. ' +
          'Or pass mock.fetch to the client: it needs nothing else.',
      );
    }
    throw new MockServiceError(
      `mock.handlers could not load msw (${error instanceof Error ? error.message : String(error)}). ` +
        "Use mock.createHandlers(await import('msw')) instead.",
    );
  }
}

/** One catch-all handler: every request under `baseUrl` is answered by the mock's `fetch`. */
export function buildHandlers<H>(msw: MswModule<H>, baseUrl: string, answer: (request: Request) => Promise<Response>): H[] {
  if (typeof msw?.http?.all !== 'function')
    throw new MockServiceError("createHandlers(msw): pass the msw module, e.g. await import('msw').");
  const prefix = `${baseUrl}/`;
  return [
    msw.http.all(
      ({ request }) => request.url.startsWith(prefix),
      ({ request }) => answer(request),
    ),
  ];
}
