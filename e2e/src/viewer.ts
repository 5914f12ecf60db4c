// The OHIF viewer as a test sees it: the uploads it shows, and whether its viewport drew an image.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { apiListFiles } from './api.js';

/** One DICOM file uploaded as a project's file, through the spec's multipart route. */
export async function uploadDicom(baseUrl: string, token: string, projectId: number, file: string): Promise<void> {
  const form = new FormData();
  form.set('studypetitionid', String(projectId));
  form.set('file', new Blob([await readFile(file)], { type: 'application/dicom' }), path.basename(file));
  const answer = await fetch(`${baseUrl}/api/v1/upload-study-petitions-files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (!answer.ok) throw new Error(`uploading ${path.basename(file)} answered ${answer.status}: ${await answer.text()}`);
}

/** Waits until every upload of the project is processed (ready or failed). */
export async function waitForProcessing(baseUrl: string, token: string, projectId: number, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = await apiListFiles(baseUrl, token, projectId);
    const done = files.filter((f) => f.processing.status === 'ready' || f.processing.status === 'failed');
    if (files.length >= count && done.length === files.length) return;
    if (Date.now() > deadline) throw new Error(`processing did not end within ${timeoutMs / 1000} s: ${files.map((f) => `${f.file} ${f.processing.status}`).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What a viewport's canvas holds: how many pixels differ from its darkest, and how many grey levels. */
export interface Drawn {
  width: number;
  height: number;
  /** Share of pixels brighter than the background. */
  lit: number;
  /** Distinct (quantised) colours: an image has many, a blank or flat canvas one or two. */
  levels: number;
}

/**
 * Reads OHIF's first viewport canvas (Cornerstone draws each viewport onto a 2D canvas). A canvas
 * that is there but blank reads lit = 0.
 */
export async function readViewport(page: Page): Promise<Drawn | null> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('canvas.cornerstone-canvas');
    if (!canvas || canvas.width === 0 || canvas.height === 0) return null;
    const context = canvas.getContext('2d');
    if (!context) return null;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let lit = 0;
    const levels = new Set<number>();
    for (let i = 0; i < data.length; i += 4) {
      const r = data[i]!;
      const g = data[i + 1]!;
      const b = data[i + 2]!;
      if (r + g + b > 30) lit += 1;
      levels.add(((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3));
    }
    return { width: canvas.width, height: canvas.height, lit: lit / (data.length / 4), levels: levels.size };
  });
}

/** An image, not a blank or single-colour canvas: some of it lit, in many levels. */
export function isImage(drawn: Drawn | null): boolean {
  return drawn !== null && drawn.lit > 0.01 && drawn.levels >= 8;
}

/** Waits until the viewport shows an image; answers what it read last. */
export async function waitForImage(page: Page, timeoutMs = 30_000): Promise<Drawn> {
  const deadline = Date.now() + timeoutMs;
  let last: Drawn | null = null;
  while (Date.now() < deadline) {
    last = await readViewport(page).catch(() => null);
    if (isImage(last)) return last!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the viewer drew no image within ${timeoutMs / 1000} s (last read: ${JSON.stringify(last)})`);
}
