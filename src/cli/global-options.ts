/**
 * The options every `payments-sdk` command takes: machine (`--json`) output and stacks on errors
 * (`--debug`). They are declared once on the program and each command reads them with
 * `optsWithGlobals()`.
 */

/** Options every command takes (declared on the program, read with `optsWithGlobals()`). */
export interface GlobalOptions {
  /** Machine output: JSON on stdout. */
  json?: boolean;
  /** Stacks on errors. */
  debug?: boolean;
}
