import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from './lazy-child-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe('lazyChildLogger', () => {
  it("writes a job's lines with its bindings, at the levels the logger writes", () => {
    const { logger, lines } = capture('warn');
    const log = lazyChildLogger(logger, { jobId: 7, job: 'process-upload' });
    log.info('job started');
    log.warn({ retryInMs: 100 }, 'job failed; will retry');
    log.error('job failed for good');
    expect(lines.map((l) => [l.msg, l.jobId, l.job])).toEqual([
      ['job failed; will retry', 7, 'process-upload'],
      ['job failed for good', 7, 'process-upload'],
    ]);
    expect(lines[0]!.retryInMs).toBe(100);
  });

  it('makes no child while nothing is written', () => {
    const { logger } = capture('warn');
    let made = 0;
    const counting = Object.assign(Object.create(logger) as typeof logger, {
      child: (...args: Parameters<typeof logger.child>) => {
        made += 1;
        return logger.child(...args);
      },
    });
    const log = lazyChildLogger(counting, { jobId: 1 });
    log.info('job started');
    log.debug('detail');
    log.info('job done');
    expect(made).toBe(0);
    log.warn('something');
    log.error('more');
    expect(made).toBe(1);
  });

  it('writes info lines when the logger is at info, and none when silent', () => {
    const info = capture('info');
    lazyChildLogger(info.logger, { jobId: 2 }).info('job started');
    expect(info.lines.map((l) => [l.msg, l.jobId])).toEqual([['job started', 2]]);
    const silent = capture('silent');
    lazyChildLogger(silent.logger, { jobId: 3 }).fatal('never');
    expect(silent.lines).toEqual([]);
  });
});
