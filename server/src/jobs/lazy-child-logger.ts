// A job's logger, with its id, kind and subject bound, made only when a line is written at a level
// the logger writes. Pino makes a child's bindings (redacting them) when the child is made: at the
// default level (warn) no line of a job that goes well is written, yet making the child cost each
// small upload about 9 KB of allocation and its redaction pass (docs/performance.md, "Single
// uploads, fewer trips to the thread pool").
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, LogFn } from 'pino';

/** Pino's levels, lowest first. */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
type Level = (typeof LEVELS)[number];

export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined;
  const made = () => (child ??= parent.child(bindings));
  // 'silent' (or a level pino does not know) is past every level: nothing is written.
  const writes = (level: Level) => {
    const threshold = LEVELS.indexOf((child ?? parent).level as Level);
    return threshold !== -1 && LEVELS.indexOf(level) >= threshold;
  };
  const at =
    (level: Level): LogFn =>
    (...args: Parameters<LogFn>) => {
      if (writes(level)) made()[level](...args);
    };
  return {
    get level() {
      return child?.level ?? parent.level;
    },
    set level(level: string) {
      made().level = level;
    },
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    silent: () => undefined,
    child: (more, options) => made().child(more, options),
  };
}
