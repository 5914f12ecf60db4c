const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** A size as the web app shows sizes (steps of 1024, two decimals), for messages a user reads. */
export function describeBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(2)} ${UNITS[unit]}`;
}
