// A folder sent as one delivery (docs/api.md, "Deliveries"): opened once (or found again from the
// state file while the portal still has it open), filled with bundles and large files, completed.
import path from 'node:path';
import { BUNDLE_METADATA_KEY, BUNDLE_METADATA_VALUE, type TDelivery } from '@portal/contract';
import { CliError, EXIT } from './exit-codes.js';
import { listFolder, planFolder } from './folder-files.js';
import { bundleOf, partsOf, type LeftOut } from './made-parts.js';
import { Progress } from './progress.js';
import { send, type SendContext } from './send.js';
import type { Run, Sent } from './run.js';
import type { PathProgress } from './state-file.js';

async function openDelivery(run: Run, state: PathProgress, name: string): Promise<TDelivery> {
  const known = state.entry.deliveryId;
  if (known !== undefined) {
    try {
      const delivery = await run.api.one<TDelivery>('GET', `/deliveries/${known}`, 'Reading the delivery');
      return delivery;
    } catch (error) {
      if (!(error instanceof CliError && error.code === EXIT.notFound)) throw error;
      run.out.write(`The delivery begun earlier (${known}) has expired on the portal; starting a new one.\n`);
    }
  }
  const delivery = await run.api.one<TDelivery>('POST', '/deliveries', `Opening a delivery for ${name}`, { studypetitionid: run.projectId, name });
  // A new delivery: uploads begun for another one belong to it, not to this.
  await state.update(() => ({ deliveryId: delivery.id, sends: {} }));
  return delivery;
}

export async function sendFolder(run: Run, folder: string): Promise<Sent> {
  const name = path.basename(path.resolve(folder));
  const { files, skipped } = await listFolder(folder);
  for (const link of skipped) run.out.write(`Left out ${link}: a symbolic link, not a file of the folder.\n`);
  if (files.length === 0) throw new CliError(EXIT.usage, `${folder} holds no file to send.`);
  const state = await run.progressOf(folder);
  let delivery = await openDelivery(run, state, name);
  const leftOut: LeftOut[] = [];
  if (delivery.status === 'open') {
    const sends = planFolder(files);
    const progress = new Progress(run.out, files.reduce((n, f) => n + f.size, 0), files.length);
    const context: SendContext = { api: run.api, state, progress, chunkBytes: await run.chunkBytes() };
    for (const [i, planned] of sends.entries()) {
      const originalBytes = planned.files.reduce((n, f) => n + f.size, 0);
      const first = planned.files[0];
      if (!planned.bundle && first) {
        const parts = await partsOf(first, run.deid);
        if (!Array.isArray(parts)) leftOut.push(parts);
        else await send(context, { key: planned.key + run.deidTag, doing: first.path, parts, originalBytes, metadata: { filename: path.basename(first.path), delivery: String(delivery.id), relativePath: first.path } });
      } else {
        const bundle = await bundleOf(planned.files, run.deid);
        leftOut.push(...bundle.leftOut);
        if (bundle.members > 0) {
          const doing = `bundle ${i + 1} of ${sends.length} (${bundle.members} files)`;
          const metadata = { filename: 'bundle.tar', delivery: String(delivery.id), [BUNDLE_METADATA_KEY]: BUNDLE_METADATA_VALUE };
          await send(context, { key: planned.key + run.deidTag, doing, parts: bundle.parts, originalBytes, metadata });
        }
      }
      progress.filesDone(planned.files.length);
    }
    progress.end();
    for (const file of leftOut) run.out.write(`Left out ${file.path}: ${file.reason}\n`);
    if (leftOut.length === files.length) throw new CliError(EXIT.refused, `No file of ${folder} could be sent: each was left out (above).`);
    delivery = await run.api.one<TDelivery>('POST', `/deliveries/${delivery.id}/complete`, `Completing the delivery of ${name}`);
  }
  await state.finish();
  if (delivery.file_id === null) throw new CliError(EXIT.unexpected, `The portal completed the delivery of ${name} but named no file for it.`);
  return { name, fileId: delivery.file_id, files: files.length - leftOut.length, leftOut };
}
