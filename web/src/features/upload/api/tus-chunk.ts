// How the web app cuts an upload into tus requests. No imports: the benchmark (bench/src/upload-tus.ts)
// and the end-to-end tests send files the way the web app does, and read these numbers from here.

/**
 * 64 MiB (67 MB): each PATCH costs the server and the browser a request's work and a pause while
 * the pipeline drains, so 16 MiB chunks kept a 1 GiB upload at ~0.7 of a bare pipe's speed
 * (docs/performance.md, 'Choosing the chunk size'). Bigger still would gain a little more, but a
 * chunk must pass proxies that cap a request's body (100 MB at some CDNs) and bounds what a
 * restarted node of a shared store loses (the chunk in flight). Within one chunk nothing is lost on
 * an interruption either: the server keeps what arrived and a resume asks it where it stands. The
 * browser slices the File lazily, so four files at a time hold no more than a few chunks in memory.
 */
export const CHUNK_BYTES = 64 * 1024 * 1024;

/**
 * A file this small goes with its creation request (the server's whole-file path takes up to
 * 1 MiB: server/src/files/tus-direct.ts). A larger one is created first: a creation that never
 * answered has no Location, so nothing sent with it could be resumed.
 */
export const WITH_CREATION_MAX_BYTES = 1024 * 1024;
