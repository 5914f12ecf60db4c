// WADO-RS for a project (issue 34): the access rules of the project's files (any role that may
// download them; another company's project or an unknown one is 404), then the stored instances
// of a study, series or instance as they are kept, their metadata, frames and bulk data.
import { companyScope, type Actor } from '../auth/index.js';
import { notFound } from '../errors/app-error.js';
import type { ProjectsService } from '../projects/index.js';
import type { Storage } from '../storage/storage.js';
import type { DicomJsonObject } from './dicom-json.js';
import { encapsulatedFrames, isNative, nativeFrame, pixelLayout, type Run } from './wado-frames.js';
import { elementAt, instanceMetadata } from './wado-json.js';
import { readHeader, readInstance, readInstanceInto, type ReadHeader } from './wado-read.js';
import type { StoredInstance, WadoRepository, WadoTarget } from './wado-repository.js';

export type { StoredInstance, WadoTarget } from './wado-repository.js';

/** Headers read at once for a series' metadata: enough to keep the storage busy, few enough for a small machine. */
const HEADERS_AT_ONCE = 8;

/** What the stored transfer syntax of an instance is when processing recorded none: DICOM's default. */
export const syntaxOf = (instance: StoredInstance) => instance.transferSyntax ?? '1.2.840.10008.1.2';

export interface Frames {
  syntax: string;
  native: boolean;
  /** The runs of stored bytes of each asked frame, in the order asked. */
  frames: Run[][];
}

function missing(target: WadoTarget): never {
  if (target.instance !== undefined) throw notFound('No instance with this SOP Instance UID is in this series of the project');
  if (target.series !== undefined) throw notFound('No series with this Series Instance UID is in this study of the project');
  throw notFound('No study with this Study Instance UID is in this project');
}

export class WadoService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly wado: WadoRepository,
    private readonly storage: Storage,
  ) {}

  /** The stored instances of the target, at least one (else 404 in words). */
  async instances(actor: Actor, projectId: number, target: WadoTarget): Promise<StoredInstance[]> {
    const project = await this.projects.require(actor, projectId, 'download');
    const found = await this.wado.instances(project.id, companyScope(actor), target);
    if (found.length === 0) missing(target);
    return found;
  }

  readInto(instance: StoredInstance, target: Uint8Array): Promise<void> {
    return readInstanceInto(this.storage, instance, target);
  }

  read(instance: StoredInstance, range?: Run) {
    return readInstance(this.storage, instance, range && { start: range.start, end: range.start + range.length - 1 });
  }

  async #header(instance: StoredInstance): Promise<ReadHeader> {
    const header = await readHeader(this.storage, instance);
    // Processing read this header once; a stored instance whose header no longer reads is damaged storage.
    if (header === null) throw new Error(`the stored header of instance ${instance.sop} could not be read`);
    return header;
  }

  /** DICOM JSON of each instance; `base(instance)`: its …/instances/{sop} URL, which its BulkDataURIs extend. */
  async metadata(instances: readonly StoredInstance[], base: (instance: StoredInstance) => string): Promise<DicomJsonObject[]> {
    const answers: DicomJsonObject[] = new Array<DicomJsonObject>(instances.length);
    let next = 0;
    const worker = async () => {
      while (next < instances.length) {
        const i = next++;
        const instance = instances[i]!;
        answers[i] = instanceMetadata(await this.#header(instance), syntaxOf(instance), `${base(instance)}/bulkdata`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(HEADERS_AT_ONCE, instances.length) }, worker));
    return answers;
  }

  /** The asked frames of an instance (numbers from 1), as stored; 404 for a frame it does not have. */
  async frames(instance: StoredInstance, numbers: readonly number[] | 'all'): Promise<Frames> {
    const syntax = syntaxOf(instance);
    const layout = pixelLayout(await this.#header(instance), syntax);
    if (layout.kind === 'none') throw notFound(layout.why);
    const native = layout.kind === 'native';
    const all = layout.kind === 'native' ? null : await encapsulatedFrames(this.storage, instance, layout);
    const count = all?.length ?? layout.frames;
    const asked = numbers === 'all' ? Array.from({ length: count }, (_, i) => i + 1) : numbers;
    const bad = asked.find((n) => n < 1 || n > count);
    if (bad !== undefined) throw notFound(`This instance has ${count} frame${count === 1 ? '' : 's'}: frame ${bad} is not one of them`);
    const frames = asked.map((n) => (layout.kind === 'native' ? [nativeFrame(layout, n)] : all![n - 1]!));
    return { syntax, native: native && isNative(syntax), frames };
  }

  /** Where a bulk data value other than Pixel Data lies ('00540016.0.00281201', split at its dots); 404 when the header has none there. */
  async bulkData(instance: StoredInstance, path: readonly string[]): Promise<Run> {
    const header = await this.#header(instance);
    const found = elementAt(header.dataSet, path);
    if (found === null || found.element.length < 0 || header.fields.transfer_syntax_uid === '1.2.840.10008.1.2.1.99') {
      throw notFound('This instance has no bulk data at this address');
    }
    return { start: found.element.dataOffset, length: found.element.length };
  }
}
