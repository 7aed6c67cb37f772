/**
 * Snippets in the docs that say where they come from (`<!-- from examples/frameworks/… -->` before
 * a code block) are copied verbatim from that file: the tested recipe and its docs cannot drift.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const DOCS = ['docs/webhooks-frameworks.md', 'README.md'];
const SNIPPET = /<!-- from (examples\/frameworks\/[^ ]+) -->\n```ts\n([\s\S]*?)```/g;

const snippets = DOCS.flatMap((doc) =>
  [...readFileSync(new URL(doc, root), 'utf8').matchAll(SNIPPET)].map(([, file, code]) => ({
    doc,
    file: file as string,
    code: code as string,
  })),
);

describe('recipe snippets in the docs', () => {
  it('docs/webhooks-frameworks.md has one for every recipe', () => {
    const files = new Set(snippets.filter((s) => s.doc === DOCS[0]).map((s) => s.file.split('/')[2]));
    expect([...files].sort()).toEqual(['express4', 'express5', 'fastify', 'hono', 'koa', 'nest', 'next-app-router', 'next-pages-router']);
  });

  it.each(snippets.map((s) => [`${s.doc}: ${s.file}`, s] as const))('%s is the code of the recipe', (_name, { file, code }) => {
    const path = new URL(file, root);
    expect(existsSync(path), `${file} exists`).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain(code);
  });
});
