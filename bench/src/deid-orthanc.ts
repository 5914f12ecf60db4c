// The baseline for the de-identification engine (issue 33, item 8): Orthanc (the Debian package)
// anonymising the same study with its own defaults, POST /studies/{id}/anonymize, timed per round.
// Orthanc is started once, the files uploaded once (not timed); each round makes a new anonymised
// copy of the original study, as the engine makes a new de-identified copy of each file.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { inPool } from './files-input.js';
import { post, startOrthanc, waitForOrthanc } from './files-orthanc.js';
import { stopChild } from './upload-process.js';

export interface OrthancAnonymiser { anonymise(): Promise<number>; stop(): Promise<void> }

export async function startOrthancWith(files: Uint8Array[]): Promise<OrthancAnonymiser> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-deid-orthanc-'));
  const { child, port } = await startOrthanc(dir);
  const stop = async (): Promise<void> => { await stopChild(child); await rm(dir, { recursive: true, force: true }); };
  try {
    await waitForOrthanc(port, child.process, 60_000);
    await inPool(files, 4, async (file) => {
      const status = await post(port, '/instances', Buffer.from(file));
      if (status !== 200) throw new Error(`Orthanc answered ${status} to an upload`);
    });
    const studies = JSON.parse(await get(port, '/studies')) as string[];
    if (studies.length !== 1) throw new Error(`Orthanc holds ${studies.length} studies, expected 1`);
    const study = studies[0];
    return {
      async anonymise() {
        const started = performance.now();
        const status = await post(port, `/studies/${study}/anonymize`, Buffer.from('{}'));
        if (status !== 200) throw new Error(`Orthanc answered ${status} to anonymize`);
        return (performance.now() - started) / 1000;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw new Error(`Orthanc: ${err instanceof Error ? err.message : String(err)}\n${child.output()}`, { cause: err });
  }
}

function get(port: number, route: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: route }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolve(text));
      response.once('error', reject);
    }).once('error', reject);
  });
}
