/**
 * The progress bar of long-running commands: items done out of the total, rate and ETA, drawn on
 * stderr only when stderr is a terminal. In a pipe or a file the display is a no-op, so
 * machine-readable output stays clean.
 */
import cliProgress from 'cli-progress';

/** A progress display that can be a no-op. */
export interface Progress {
  /** Sets the total when it becomes known (`meta.total`). */
  setTotal(total: number): void;
  /** Sets how many items are done. */
  update(done: number): void;
  /** Removes the bar from the terminal. */
  stop(): void;
}

const NO_PROGRESS: Progress = { setTotal() {}, update() {}, stop() {} };

/**
 * A progress bar on stderr, only when stderr is a terminal: items out of the total, rate and ETA.
 * In a pipe or a file there is none (machine-readable output stays clean).
 */
export function createProgress(label: string, total = 0): Progress {
  if (!process.stderr.isTTY) return NO_PROGRESS;
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {value}/{total} | {rate}/s | ETA {eta_formatted}`,
      barCompleteChar: '#',
      barIncompleteChar: '-',
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      fps: 10,
    },
    cliProgress.Presets.legacy,
  );
  bar.start(total, 0, { rate: '0' });
  return {
    setTotal: (n) => bar.setTotal(n),
    update: (done) => {
      const seconds = (Date.now() - started) / 1000;
      bar.update(done, { rate: seconds > 0 ? Math.round(done / seconds).toString() : '0' });
    },
    stop: () => bar.stop(),
  };
}
