const SIZE_UNITS = ['Bytes', 'KB', 'MB', 'GB'] as const;

/** Spec §2/§9: Bytes, KB, MB or GB with 2 decimals, stepping by 1024; 'N/A' when unknown. */
export function formatFileSize(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return 'N/A';
  let unit = 0;
  let value = bytes;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(2)} ${SIZE_UNITS[unit]}`;
}

/** Spec §2: dates in the browser's local format, 'N/A' when missing or unreadable. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return 'N/A';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? 'N/A' : date.toLocaleDateString();
}

/**
 * The local date and time, for a hover over a date: rows changed on the same day read the same
 * date, and only the time tells them apart. 'N/A' when missing or unreadable.
 */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return 'N/A';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? 'N/A' : date.toLocaleString();
}

/** DICOM dates come as YYYYMMDD; shown as YYYY-MM-DD, anything else as given. */
export function formatDicomDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : value;
}

/**
 * A DICOM description as text (issue 36): some devices write component separators in it, as in a
 * person name ('abdomen^liver'); they read as spaces. Null when nothing is left.
 */
export function formatDicomText(value: string | null | undefined): string | null {
  if (!value) return null;
  const text = value.replace(/\^+/g, ' ').replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}
