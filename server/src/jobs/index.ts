// The queue's public surface: features define kinds and enqueue; the composition root runs them.
export { defineJobKind, JobCancelled, jobType, type JobContext, type JobKind, type JobType } from './job-kind.js';
export { JobRunner, UnknownJobKind, type JobEnded, type JobOutcome, type JobRunnerOptions, type LaneReservation } from './job-runner.js';
export { enqueueJob, JobsRepository, type EnqueueOptions, type QueueDepth } from './jobs.repository.js';
