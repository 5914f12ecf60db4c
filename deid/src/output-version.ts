/**
 * Changes whenever the engine's output for the same input, policy and key changes (2: elements kept
 * unchanged are copied as written instead of re-encoded by dcmjs). Senders name made bytes by it
 * with the policy and edition, so that an upload begun by one version is not resumed with another's bytes.
 * Its own module: the upload dialog reads it without loading the engine.
 */
export const OUTPUT_VERSION = 2;
