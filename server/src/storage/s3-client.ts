// The one S3 client of a process, configured for S3-compatible services as well as AWS.
import { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../config/config.js';

// Downloads hold a connection for as long as their reader takes; the SDK's default of 50 would
// make the 51st concurrent download wait for another to finish.
const MAX_SOCKETS = 1024;

export function createS3Client(s3: S3Config): S3Client {
  return new S3Client({
    region: s3.region,
    ...(s3.endpoint !== undefined ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    // Passed as a fresh object: the SDK must not keep a reference it could log or serialise.
    ...(s3.credentials !== undefined
      ? { credentials: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: s3.credentials.secretAccessKey } }
      : {}),
    // Checksums only where S3 demands them: many S3-compatible services (s3rver, older MinIO and
    // Ceph) reject the streaming checksum trailers the SDK would otherwise add to every upload.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: 10_000,
      httpAgent: { keepAlive: true, maxSockets: MAX_SOCKETS },
      httpsAgent: { keepAlive: true, maxSockets: MAX_SOCKETS },
    },
  });
}
