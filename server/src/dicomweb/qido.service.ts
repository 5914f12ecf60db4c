// QIDO-RS for a project (issue 34): the access rules of the project's files, then the search.
import { companyScope, type Actor } from '../auth/index.js';
import type { ProjectsService } from '../projects/index.js';
import { dicomJson, type DicomJsonObject } from './dicom-json.js';
import type { Level } from './qido-attributes.js';
import { readSearch, type Match } from './qido-query.js';
import type { QidoRepository } from './qido.repository.js';
import { attributeNamed } from './qido-attributes.js';

export type QidoQuery = Record<string, string | string[] | undefined>;

/** The UIDs of the route's path (…/studies/{study}/series/{series}/instances). */
export interface QidoPath {
  study?: string;
  series?: string;
}

export class QidoService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly qido: QidoRepository,
  ) {}

  /** Another company's project, or an unknown one, is 404; any role that may read the project may search it. */
  async search(actor: Actor, projectId: number, level: Level, path: QidoPath, query: QidoQuery, base: string): Promise<DicomJsonObject[]> {
    const project = await this.projects.require(actor, projectId, 'read');
    const placed: Match[] = [];
    if (path.study !== undefined) placed.push({ attr: attributeNamed('StudyInstanceUID')!, kind: 'uids', values: [path.study] });
    if (path.series !== undefined) placed.push({ attr: attributeNamed('SeriesInstanceUID')!, kind: 'uids', values: [path.series] });
    const search = readSearch(level, query, placed);
    const rows = await this.qido.search(project.id, companyScope(actor), search);
    return rows.map((row) => dicomJson(level, search.fields, row, base));
  }
}
