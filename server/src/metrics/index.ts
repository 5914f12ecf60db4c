// Metrics for Prometheus: one Metrics per composition (services.ts), fed by hooks and observers,
// served by the API (metrics.routes.ts) and by workers on METRICS_PORT (metrics-server.ts).
export { Metrics, QUEUE_COUNT_CAP, type QueueReading, type UploadPath } from './metrics.js';
export { countStorageErrors } from './storage-errors.js';
export { registerHttpMetrics } from './http-metrics.js';
export { metricsRoutes } from './metrics.routes.js';
export { serveMetrics, type MetricsServer } from './metrics-server.js';
