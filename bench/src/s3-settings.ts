// Where the benchmarks' S3 runs store: the operator's bucket when S3_BUCKET is set (every S3_*
// setting of docs/configuration.md), else an s3rver on loopback in the benchmark's own process
// (as the tests use it; its speed, not the portal's, is then the bound).
export interface S3Target {
  /** S3_* settings for the portal process. */
  env: Record<string, string>;
  where: string;
  close(): Promise<void>;
}

export function s3EnvOf(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[0].startsWith('S3_') && e[1] !== undefined));
}

/** The environment without any S3_* setting, so a filesystem run never stores in a bucket by accident. */
export function withoutS3(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('S3_')));
}

export async function s3Target(): Promise<S3Target> {
  if (process.env.S3_BUCKET) {
    return { env: s3EnvOf(process.env), where: `bucket ${process.env.S3_BUCKET} at ${process.env.S3_ENDPOINT ?? 'AWS'}`, close: () => Promise.resolve() };
  }
  const { startTestS3 } = await import('../../server/test/s3.js');
  const s3 = await startTestS3();
  const bucket = await s3.createBucket();
  return { env: s3.env(bucket), where: `s3rver on loopback in the benchmark's process (${s3.endpoint})`, close: () => s3.close() };
}
