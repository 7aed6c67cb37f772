/**
 * Runtime detection without `node:` imports: edge runtimes load this file too, and they have no
 * `node:` modules.
 */

// biome-ignore lint/suspicious/noExplicitAny: feature detection on globals that have no types here.
const globals = globalThis as any;

/** Name and version of the runtime, for the `User-Agent` header. */
export function runtimeName(): string {
  if (globals.Bun) return `bun/${globals.Bun.version}`;
  if (globals.Deno) return `deno/${globals.Deno.version?.deno ?? 'unknown'}`;
  if (typeof globals.EdgeRuntime === 'string') return 'vercel-edge';
  if (isCloudflareWorkers()) return 'cloudflare-workers';
  if (typeof globals.process?.versions?.node === 'string') return `node/${globals.process.versions.node}`;
  return 'unknown';
}

/**
 * `true` in a web browser. Workers define `navigator`, and Deno 1 defined `window` (without a
 * `document`), so a browser is recognised by a DOM `document` on a `window` that is the global object.
 */
export function isBrowser(): boolean {
  return globals.window === globals && globals.document !== undefined;
}

/**
 * Reads an environment variable on Node, Bun and Deno 2 (whose `process.env` is `Deno.env`);
 * `undefined` elsewhere, when blank, or when not allowed.
 */
export function readEnv(name: string): string | undefined {
  try {
    const value = globals.process?.env?.[name];
    if (typeof value === 'string' && value.trim() !== '') return value;
  } catch {
    // Deno without --allow-env throws: treat it as unset (envReadDenied tells the two apart).
  }
  return undefined;
}

/**
 * `true` when Deno refused to read `name` (run without `--allow-env`, or with an `--allow-env` list
 * that leaves it out, and no prompt): the variable may well be set, so "not set" would mislead.
 */
export function envReadDenied(name: string): boolean {
  const deno = globals.Deno;
  if (typeof deno?.env?.get !== 'function') return false;
  try {
    deno.env.get(name);
    return false;
  } catch (error) {
    // Deno 2's permission error.
    return (error as Error | undefined)?.name === 'NotCapable';
  }
}

/** `true` on Cloudflare Workers (workerd), whose variables and secrets arrive in the `env` of `fetch`. */
export function isCloudflareWorkers(): boolean {
  return globals.navigator?.userAgent === 'Cloudflare-Workers';
}

/**
 * The message for a required setting that was neither passed nor found in the environment, with the
 * fix that applies where the code runs: on Workers the value is a binding in `env` (or in
 * `process.env` with `nodejs_compat`); on Deno a denied read needs `--allow-env`, not a variable.
 *
 * @param what - what is missing, capitalised ("No API key").
 * @param option - the option that passes it (`apiKey`).
 * @param variable - the environment variable read by default (`PAYMENTS_API_KEY`).
 * @param call - where the option goes (`new PaymentsClient()`).
 */
export function missingSettingMessage(what: string, option: string, variable: string, call: string): string {
  if (isCloudflareWorkers()) {
    return (
      `${what}: on Cloudflare Workers, variables and secrets arrive in the env of your fetch handler, not in process.env. ` +
      `Build it there, ${call.replace(/\(\)$/, '')}({ ${option}: env.${variable} }), or enable the nodejs_compat ` +
      'compatibility flag (compatibility date 2025-04-01 or later), which fills process.env from them.'
    );
  }
  if (envReadDenied(variable)) {
    return (
      `${what}: Deno denied reading the ${variable} environment variable. Run with --allow-env=${variable} ` +
      `(or a wider --allow-env), or pass { ${option} } to ${call}.`
    );
  }
  return `${what}: pass { ${option} } to ${call} or set the ${variable} environment variable.`;
}
