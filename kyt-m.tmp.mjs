import * as esbuild from 'esbuild';

for (const f of ['src/internal/http.ts', 'src/internal/exchange.ts', 'src/internal/logger.ts']) {
  const r = await esbuild.build({
    entryPoints: [f],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    external: ['ky', '../core/*', './*'],
  });
  console.log(f, r.outputFiles[0].text.length);
  if (process.argv[2] === f) console.log(r.outputFiles[0].text);
}
