// s3rver 3.7 ships no type declarations: the part the tests use.
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    configureBuckets?: { name: string }[];
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware list: functions of (ctx, next). */
    middleware: unknown[];
    /** Resolves with the address it listens on. */
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
