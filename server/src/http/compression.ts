// JSON answers are compressed for clients that accept br or gzip: a page of 500 archive entries is
// 352 KB as JSON and 32 KB gzipped. Nothing else is: downloads are DICOM and archives that barely
// compress, are served with Content-Length and byte ranges (whose offsets are of the unencoded
// bytes), and tus answers carry no body. Small answers are sent as they are (the threshold).
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Answers shorter than this gain too little to be worth compressing. */
export const COMPRESS_THRESHOLD_BYTES = 1024;
const JSON_TYPE = /^application\/json(;|$)/i;

/** Register before the routes: the plugin hooks into each route as it is added. */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESS_THRESHOLD_BYTES,
    customTypes: JSON_TYPE,
    // Request bodies are never decoded: an upload's bytes are stored exactly as they arrive.
    globalDecompression: false,
  });
}
