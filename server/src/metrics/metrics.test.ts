import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';

const lines = (text: string, prefix: string) => text.split('\n').filter((line) => line.startsWith(prefix));

describe('Metrics', () => {
  it('keeps the counts of each instance apart, as apps built side by side in one process need', async () => {
    const first = new Metrics();
    const second = new Metrics();
    first.uploaded('multipart', 1234);
    expect(lines(await first.exposition(), 'portal_upload_bytes_total{path="multipart"}')).toEqual(['portal_upload_bytes_total{path="multipart"} 1234']);
    expect(lines(await second.exposition(), 'portal_upload_bytes_total{path="multipart"}')).toEqual(['portal_upload_bytes_total{path="multipart"} 0']);
  });

  it('reads the queue once per scrape, and ages its oldest due job from when it became due', async () => {
    const metrics = new Metrics();
    let readings = 0;
    const dueAt = new Date(Date.now() - 90_000).toISOString();
    metrics.watchQueue(() => {
      readings += 1;
      return Promise.resolve({ waiting: 3, delayed: 1, running: 2, oldestDueAt: dueAt });
    }, () => undefined);
    const text = await metrics.exposition();
    expect(readings).toBe(1);
    expect(lines(text, 'portal_job_queue_depth{')).toEqual([
      'portal_job_queue_depth{state="waiting"} 3',
      'portal_job_queue_depth{state="delayed"} 1',
      'portal_job_queue_depth{state="running"} 2',
    ]);
    const age = Number(lines(text, 'portal_job_queue_oldest_waiting_seconds ')[0]!.split(' ')[1]);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(120);
  });

  it('serves everything else when the queue cannot be read, and says the queue is not known', async () => {
    const metrics = new Metrics();
    const warned: unknown[] = [];
    metrics.watchQueue(() => Promise.reject(new Error('connection refused')), (err) => warned.push(err));
    metrics.loginFailed();
    const text = await metrics.exposition();
    expect(lines(text, 'portal_login_failures_total ')).toEqual(['portal_login_failures_total 1']);
    expect(lines(text, 'portal_job_queue_depth{')).toEqual([]);
    // prom-client writes 'Nan', which Prometheus reads as NaN like any case of it.
    const oldest = lines(text, 'portal_job_queue_oldest_waiting_seconds ');
    expect(oldest).toHaveLength(1);
    expect(oldest[0]!.split(' ')[1]!.toLowerCase()).toBe('nan');
    expect(warned).toEqual([new Error('connection refused')]);
  });
});
