// How the web app cuts an upload into tus requests. No imports: the benchmark (bench/src/upload-tus.ts)
// and the end-to-end tests send files the way the web app does, and read these numbers from here.

/**
 * 64 MiB (67 MB). Each PATCH costs the server and the browser work of its own beyond its bytes
 * (~15–30 ms of the server's CPU, most of it garbage collection), so 16 MiB chunks kept a 1 GiB
 * upload at 0.6–0.7 of a bare pipe's speed and 64 MiB at ~0.8; one PATCH for the whole file, as
 * tus-js-client does by default, reached 0.93 (docs/performance.md, 'Choosing the chunk size').
 * A chunk must still pass proxies that cap a request's body (100 MB at some CDNs), and it is what
 * a node of a shared store loses if it dies mid-PATCH. Otherwise its size costs a resume nothing:
 * the server keeps what arrived of a PATCH and a resume asks it where it stands. The browser slices
 * the File lazily, so four files at a time hold no more than a few chunks in memory.
 */
export const CHUNK_BYTES = 64 * 1024 * 1024;

/**
 * A file this small goes with its creation request (the server's whole-file path takes up to
 * 1 MiB: server/src/files/tus-direct.ts). A larger one is created first: a creation that never
 * answered has no Location, so nothing sent with it could be resumed.
 */
export const WITH_CREATION_MAX_BYTES = 1024 * 1024;
