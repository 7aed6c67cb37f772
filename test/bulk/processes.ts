/** Runs test/bulk/child.ts (or another script of test/bulk) in child processes: bundled once by esbuild, read line by line. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { bundleScript } from '../helpers/bundle-script.js';

/** Bundles the child script (test/bulk/child.ts, or another script of test/bulk) for plain Node. */
export function bundleChild(script = 'child.ts'): Promise<{ file: string; cleanup(): Promise<void> }> {
  return bundleScript(`test/bulk/${script}`);
}

/** A running child: its result lines as they come, and its end. */
export interface Run {
  child: ChildProcess;
  /** `index → status`, as reported. */
  results: Map<number, string>;
  /** Every result line, duplicates included (an index reported twice would show here). */
  lines: number;
  summary?: Record<string, number | boolean>;
  stderr: string;
  /** Resolves on exit with the code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the child with `BULK_*` settings; `onResult` sees each result line as it arrives. */
export function runChild(file: string, env: Record<string, string>, onResult?: (run: Run) => void): Run {
  const child = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = { child, results: new Map(), lines: 0, stderr: '', exited: Promise.resolve({ code: null, signal: null }) };
  child.stderr?.on('data', (chunk) => {
    run.stderr += String(chunk);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => {
    if (line.startsWith('R ')) {
      const [, index, status] = line.split(' ');
      run.results.set(Number(index), String(status));
      run.lines += 1;
      onResult?.(run);
    } else if (line.startsWith('S ')) {
      run.summary = JSON.parse(line.slice(2));
    }
  });
  run.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      // Let readline deliver what is buffered.
      setImmediate(() => resolve({ code, signal }));
    });
  });
  return run;
}
