/**
 * How often the job lanes of a test's portal (in process or a spawned server or worker) look for
 * jobs nothing woke them for: jobs queued by another process, notifications, retries fallen due.
 * The default second made tests wait out half a second on average for each such job; a tenth of a
 * second costs an idle lane ten claims a second.
 */
export const TEST_POLL_MS = 100;
