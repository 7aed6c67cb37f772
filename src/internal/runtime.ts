/**
 * Runtime detection without `node:` imports: edge runtimes load this file too, and they have no
 * `node:` modules.
 */

// biome-ignore lint/suspicious/noExplicitAny: feature detection on globals that have no types here.
const globals = globalThis as any;

/** Name and version of the runtime, for the `User-Agent` header. */
export function runtimeName(): string {
  if (typeof globals.Bun !== 'undefined') return `bun/${globals.Bun.version}`;
  if (typeof globals.Deno !== 'undefined') return `deno/${globals.Deno.version?.deno ?? 'unknown'}`;
  if (typeof globals.EdgeRuntime === 'string') return 'vercel-edge';
  if (globals.navigator?.userAgent === 'Cloudflare-Workers') return 'cloudflare-workers';
  if (typeof globals.process?.versions?.node === 'string') return `node/${globals.process.versions.node}`;
  return 'unknown';
}

/**
 * `true` in a web browser. Deno and workers define `window` or `navigator` in some versions, so a
 * browser is recognised by a DOM `document` on a `window` that is the global object.
 */
export function isBrowser(): boolean {
  return (
    typeof globals.window !== 'undefined' &&
    globals.window === globals &&
    typeof globals.document !== 'undefined' &&
    typeof globals.Deno === 'undefined'
  );
}

/** Reads an environment variable on Node, Bun and Deno; `undefined` elsewhere or when not allowed. */
export function readEnv(name: string): string | undefined {
  try {
    const fromProcess = globals.process?.env?.[name];
    if (typeof fromProcess === 'string') return fromProcess.trim() === '' ? undefined : fromProcess;
    const fromDeno = globals.Deno?.env?.get?.(name);
    if (typeof fromDeno === 'string') return fromDeno.trim() === '' ? undefined : fromDeno;
  } catch {
    // Deno without --allow-env throws: treat it as unset.
  }
  return undefined;
}
