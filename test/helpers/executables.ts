/**
 * Finding a system program that some tests need (redis-server, chromium) without root: an explicit
 * path from an environment variable, then every directory of PATH, then a few fixed directories
 * (Debian puts such programs in /usr/bin, which a restricted PATH may leave out). A candidate counts
 * only when it is a regular file this process may execute.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Directories searched after PATH. */
export const FALLBACK_DIRS = ['/usr/bin', '/usr/sbin', '/usr/local/bin'] as const;

/** `true` when `path` is a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first executable among `names`, or `undefined`. When `explicit` (a path from an environment
 * variable) is given, it alone decides. Synchronous: `describe` needs the answer at collection.
 */
export function findExecutable(
  names: readonly string[],
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  fallbackDirs: readonly string[] = FALLBACK_DIRS,
): string | undefined {
  if (explicit) return isExecutableFile(explicit) ? explicit : undefined;
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...fallbackDirs];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}
