// What a script that runs portal-upload can rely on (docs/cli.md lists them): one code per kind of
// outcome, so that a cron job can tell "try again later" from "fix the command".
export const EXIT = {
  ok: 0,
  /** Anything not foreseen below; the message says what happened. */
  unexpected: 1,
  /** A wrong command line, or a token file or PATH that cannot be read. */
  usage: 2,
  /** The token was refused (401) or may not do this (403). */
  auth: 3,
  /** The project (or an upload or delivery it names) does not exist for this token. */
  notFound: 4,
  /** The portal could not be reached, or kept failing (5xx), after the retries. */
  network: 5,
  /** The portal refused what was sent (too large, not DICOM or an archive, a bad path…), or files were left out. */
  refused: 6,
  /** With --wait: processing failed. */
  processingFailed: 7,
  /** Stopped by Ctrl-C or SIGTERM; running the same command again resumes. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An outcome that ends the run: its words for the person reading, its code for the script. */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
  ) {
    super(message);
  }
}
