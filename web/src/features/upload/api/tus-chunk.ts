// How the web app cuts an upload into tus requests. No imports: the benchmark (bench/src/files-portal.ts)
// sends files the way the web app does, and reads these numbers from here.

/**
 * The chunk of a tus upload when the server cannot say (GET /upload-settings failed, or an older
 * server): 256 MiB, the server's own UPLOAD_CHUNK_BYTES default. tus-js-client waits for each
 * PATCH's answer before it sends the next, so every chunk costs a pipeline bubble besides the
 * server's work of its own per PATCH: 64 MiB chunks kept a 1 GiB upload at ~0.74–0.85 of a bare
 * pipe's speed, 256 MiB reach ~0.87–1.0 (docs/performance.md, 'Choosing the chunk size').
 * The size is the operator's setting, not the web app's, because only the operator knows what lies
 * between browser and server: a proxy or CDN that caps a request's body (100 MB at some) needs
 * chunks below its cap, and with TUS_STORE=shared a chunk is what a node dying mid-PATCH loses.
 * Otherwise its size costs a resume nothing: the server keeps what arrived of a PATCH and a resume
 * asks it where it stands. The browser slices the File lazily, so a large chunk is never held in
 * memory whole.
 */
export const DEFAULT_CHUNK_BYTES = 256 * 1024 * 1024;

/**
 * A file this small goes with its creation request (the server's whole-file path takes up to
 * 1 MiB: server/src/tus/tus-direct.ts). A larger one is created first: a creation that never
 * answered has no Location, so nothing sent with it could be resumed.
 */
export const WITH_CREATION_MAX_BYTES = 1024 * 1024;
