// A project's de-identification policy and key (issue 33, item 2). Anyone who may read the project
// reads its policy; only a SysAdmin sets it; only the people of the project's own company (who send
// its data) receive its key, never the operator's SysUser or SysAdmin.
import {
  DEIDENTIFICATION_OPTIONS,
  type TDeidentificationPolicy,
  type TProjectKey,
  type TUpdateDeidentificationPolicy,
} from '@portal/contract';
import type { Actor } from '../auth/index.js';
import type { AuditTrail } from '../audit/index.js';
import { notFound } from '../errors/app-error.js';
import type { ProjectsService } from '../projects/index.js';
import { presentPolicy } from './deidentification.presenter.js';
import type { DeidentificationRepository } from './deidentification.repository.js';
import type { ProjectKeys } from './project-keys.js';

export class DeidentificationService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly repo: DeidentificationRepository,
    private readonly keys: ProjectKeys,
    private readonly audit: AuditTrail,
  ) {}

  async policy(actor: Actor, projectId: number): Promise<TDeidentificationPolicy> {
    return presentPolicy(await this.projects.require(actor, projectId, 'read'));
  }

  async setPolicy(actor: Actor, projectId: number, body: TUpdateDeidentificationPolicy): Promise<TDeidentificationPolicy> {
    const project = await this.projects.require(actor, projectId, 'setDeidentification');
    const before = presentPolicy(project);
    const options = DEIDENTIFICATION_OPTIONS.filter((option) => body.options.includes(option));
    if (before.profile === body.profile && before.options.join() === options.join()) return before;
    const updated = await this.repo.setPolicy(project.id, body.profile, options);
    if (!updated) throw notFound('Project not found');
    await this.audit.record({
      action: 'project.deidentification_changed',
      companyId: project.company_id,
      object: { type: 'project', id: project.id },
      details: { profile: body.profile, options: options.join(','), previous_profile: before.profile, previous_options: before.options.join(',') },
    });
    return presentPolicy(updated);
  }

  /** The project's key for its own company's people: made at its first use, the same ever after. */
  async projectKey(actor: Actor, projectId: number): Promise<TProjectKey> {
    const project = await this.projects.require(actor, projectId, 'receiveProjectKey');
    return { key: (await this.keys.keyOf(project.id)).toString('base64url') };
  }

  /** For the server's own de-identification of what arrives: no one's access is checked. */
  keyOfProject(projectId: number): Promise<Buffer> {
    return this.keys.keyOf(projectId);
  }

  /** For the server's own de-identification: undefined for a project that is gone. */
  async policyOfProject(projectId: number): Promise<TDeidentificationPolicy | undefined> {
    const row = await this.repo.policyOf(projectId);
    return row && presentPolicy(row);
  }
}
