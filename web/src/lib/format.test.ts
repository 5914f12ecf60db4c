import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatDicomDate, formatDicomText, formatFileSize } from './format';

describe('formatFileSize', () => {
  it.each([
    [0, '0.00 Bytes'],
    [512, '512.00 Bytes'],
    [1023, '1023.00 Bytes'],
    [1024, '1.00 KB'],
    [1536, '1.50 KB'],
    [1024 * 1024, '1.00 MB'],
    [5.25 * 1024 * 1024, '5.25 MB'],
    [1024 ** 3, '1.00 GB'],
    [3 * 1024 ** 4, '3072.00 GB'],
  ])('shows %d bytes as %s', (bytes, text) => {
    expect(formatFileSize(bytes)).toBe(text);
  });

  it.each([null, undefined, Number.NaN, -1])("shows 'N/A' for %s", (value) => {
    expect(formatFileSize(value)).toBe('N/A');
  });
});

describe('formatDate', () => {
  it('uses the local date format', () => {
    const iso = '2026-03-01T10:00:00Z';
    expect(formatDate(iso)).toBe(new Date(iso).toLocaleDateString());
  });

  it.each([null, undefined, '', 'not a date'])("shows 'N/A' for %s", (value) => {
    expect(formatDate(value)).toBe('N/A');
  });
});

describe('formatDateTime', () => {
  it('uses the local date and time format, so two times on one day differ', () => {
    const morning = '2026-03-01T08:15:00Z';
    const evening = '2026-03-01T19:40:00Z';
    expect(formatDateTime(morning)).toBe(new Date(morning).toLocaleString());
    expect(formatDateTime(morning)).not.toBe(formatDateTime(evening));
  });

  it.each([null, undefined, '', 'not a date'])("shows 'N/A' for %s", (value) => {
    expect(formatDateTime(value)).toBe('N/A');
  });
});

describe('formatDicomDate', () => {
  it.each([
    ['20040119', '2004-01-19'],
    ['2004-01-19', '2004-01-19'],
    ['', null],
    [null, null],
  ])('%s → %s', (value, text) => {
    expect(formatDicomDate(value)).toBe(text);
  });
});

describe('formatDicomText', () => {
  it.each([
    ['abdomen^liver', 'abdomen liver'],
    ['CT^^Head  ^', 'CT Head'],
    ['Brain MRI', 'Brain MRI'],
    ['^^', null],
    ['', null],
    [null, null],
  ])('%j reads %j', (value, expected) => {
    expect(formatDicomText(value)).toBe(expected);
  });
});
