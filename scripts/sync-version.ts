/**
 * Writes package.json's version into src/version.ts (the `User-Agent` reads it). Run by
 * `npm run version` right after `changeset version` bumps package.json; test/version.test.ts fails
 * if the two ever differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
const file = new URL('src/version.ts', root);
const before = readFileSync(file, 'utf8');
const after = before.replace(/export const VERSION = '[^']*';/, `export const VERSION = '${version}';`);
if (!after.includes(`'${version}'`)) throw new Error('src/version.ts has no `export const VERSION = …` line to update');
writeFileSync(file, after);
console.log(`src/version.ts: VERSION = '${version}'`);
