// What the 7-Zip worker learns about each file it has just written, so the job's thread need not
// open it again: that it is a regular file inside the output directory, its size, its kind, and
// for DICOM its header fields. Runs synchronously, on the worker, inside 7-Zip's run.
import { closeSync, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { TDicomFields } from '@portal/contract';
import { detectKind, type ContentKind } from './detect/detect-kind.js';
import { readDicomHeaderSync, type DicomHeader } from './dicom/dicom-header.js';

/** A DICOM header as the job records it (the parsed data set stays on the worker). */
export type DicomSummary =
  | { ok: true; fields: TDicomFields; isDicomdir: boolean; warning: string | null }
  | { ok: false; reason: string };

export interface EntryAnalysis {
  size: number;
  kind: ContentKind;
  /** For kind 'dicom' only. */
  dicom: DicomSummary | null;
}

export function summarizeHeader(header: DicomHeader): DicomSummary {
  return header.ok
    ? { ok: true, fields: header.fields, isDicomdir: header.isDicomdir, warning: header.warning }
    : { ok: false, reason: header.reason };
}

/** Enough for kind detection and, usually, a whole DICOM header. */
export const ANALYSIS_HEAD_BYTES = 64 * 1024;

/** Kind and header from a file's first bytes; `at` says where the rest is, should more be needed. */
export function analyzeHead(head: Uint8Array, at: { fd: number; base: number; size: number }, maxDicomHeaderBytes: number): EntryAnalysis {
  const kind = detectKind(head);
  const dicom = kind === 'dicom' ? summarizeHeader(readDicomHeaderSync(at.fd, at.size, maxDicomHeaderBytes, head, at.base)) : null;
  return { size: at.size, kind, dicom };
}

export class EntryAnalyzer {
  /** Real paths of directories already checked to lie inside the root. */
  private readonly insideDirs = new Set<string>();
  private readonly realRoot: string;
  private readonly head = Buffer.alloc(ANALYSIS_HEAD_BYTES);

  constructor(
    private readonly root: string,
    private readonly maxDicomHeaderBytes: number,
  ) {
    this.realRoot = realpathSync(root);
  }

  /** Null when the file is not a regular file inside the root (the job then checks it itself). */
  analyze(rel: string): EntryAnalysis | null {
    try {
      if (!this.isRegularInside(rel)) return null;
      const fd = openSync(path.join(this.root, rel), 'r');
      try {
        const { size } = fstatSync(fd);
        return analyzeHead(this.head.subarray(0, readSync(fd, this.head, 0, ANALYSIS_HEAD_BYTES, 0)), { fd, base: 0, size }, this.maxDicomHeaderBytes);
      } finally {
        closeSync(fd);
      }
    } catch {
      return null;
    }
  }

  /** The same, for a file the caller has just written and still holds open, from the head it kept. */
  analyzeWritten(rel: string, head: Uint8Array, fd: number, size: number): EntryAnalysis | null {
    try {
      return this.isRegularInside(rel) ? analyzeHead(head, { fd, base: 0, size }, this.maxDicomHeaderBytes) : null;
    } catch {
      return null;
    }
  }

  private isRegularInside(rel: string): boolean {
    const file = path.join(this.root, rel);
    return lstatSync(file).isFile() && this.isInside(path.dirname(file));
  }

  private isInside(dir: string): boolean {
    if (this.insideDirs.has(dir)) return true;
    const real = realpathSync(dir);
    const inside = real === this.realRoot || real.startsWith(this.realRoot + path.sep);
    if (inside) this.insideDirs.add(dir);
    return inside;
  }
}
