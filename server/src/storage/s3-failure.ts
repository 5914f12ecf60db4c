// What an operator reads when the bucket cannot be used: the cause in words and the setting to
// check, never the SDK's raw text (which may name internals) and never a credential.

export interface S3Target {
  bucket: string;
  endpoint: string | undefined;
  region: string;
}

/** `s3://bucket at https://host:port` (without any user or password the address may carry). */
export function describeTarget(target: S3Target): string {
  if (target.endpoint === undefined) return `S3 bucket "${target.bucket}" in AWS region ${target.region}`;
  let where: string;
  try {
    where = new URL(target.endpoint).origin;
  } catch {
    where = 'S3_ENDPOINT';
  }
  return `S3 bucket "${target.bucket}" at ${where}`;
}

export function s3Status(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('$metadata' in err)) return undefined;
  const metadata = (err as { $metadata?: { httpStatusCode?: number } }).$metadata;
  return metadata?.httpStatusCode;
}

export function s3ErrorName(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if ('code' in e && typeof e.code === 'string') return e.code;
  }
  return undefined;
}

/** Why a request to the bucket failed, as a clause: "the bucket does not exist". */
export function describeS3Failure(err: unknown, target: S3Target): string {
  const status = s3Status(err);
  const name = s3ErrorName(err);
  const code = errorCode(err);
  if (name === 'NoSuchBucket' || (status === 404 && name === 'NotFound')) return `the bucket "${target.bucket}" does not exist: create it, or correct S3_BUCKET`;
  if (name === 'InvalidAccessKeyId') return 'the service does not know S3_ACCESS_KEY_ID';
  if (name === 'SignatureDoesNotMatch') return 'the service refused S3_SECRET_ACCESS_KEY (the signature does not match)';
  if (status === 403 || name === 'AccessDenied') return 'access was denied: check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, and that they may use this bucket';
  if (status === 301 || name === 'PermanentRedirect' || name === 'AuthorizationHeaderMalformed') return 'the bucket is in another region: check S3_REGION';
  if (name === 'CredentialsProviderError') return 'no credentials were found: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or give the machine a role';
  if (code === 'ECONNREFUSED') return 'nothing accepts connections at that address: check S3_ENDPOINT and that the service runs';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name in S3_ENDPOINT cannot be resolved';
  if (code === 'ETIMEDOUT' || name === 'TimeoutError') return 'the service did not answer in time';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the service closed the connection';
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return 'the secure connection failed (certificate): check S3_ENDPOINT';
  if (status !== undefined) return `the service answered with HTTP status ${status}`;
  return 'the request failed before the service answered';
}
