// For the S3 pass (vitest.config.ts): the s3rver a test file started is stopped after its tests.
import { afterAll } from 'vitest';
import { closeSharedTestS3 } from './storage-backends.js';

afterAll(closeSharedTestS3);
