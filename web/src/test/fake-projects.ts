import type { TListedProject, TProject } from '@portal/contract';
import type { FakeCall, FakeReply } from './fake-api';

type Params = Record<string, string | number | undefined>;

/** A project as the projects list answers it: the spec's fields and the list's additions (docs/api.md 'The projects list'). */
export function asListed(project: TProject, extra: Partial<TListedProject> = {}): TListedProject {
  return { companyname: 'Acme Imaging', files: 0, studies: 0, last_upload_at: null, ...project, ...extra };
}

/**
 * GET /study-petitions answered as the server does: searched, filtered by company, sorted and
 * paged, with the total. Kept to what the web app sends; the server's own tests
 * (server/test/api/projects-list.test.ts) check the real thing on both databases.
 */
export function answerProjects(projects: ReadonlyArray<TProject | TListedProject>, call: FakeCall): FakeReply {
  const params = (call.params ?? {}) as Params;
  const all = projects.map((p) => ('companyname' in p ? p : asListed(p)));
  const q = String(params.q ?? '').toLowerCase();
  let matches = all.filter((p) => p.name.toLowerCase().includes(q) && (params.company_id === undefined || p.company_id === Number(params.company_id)));
  const sort = params.sort as string | undefined;
  const direction = params.order === 'desc' ? -1 : 1;
  const value = (p: TListedProject): string | number | null =>
    sort === 'name' ? p.name.toLowerCase() : sort === 'company' ? p.companyname.toLowerCase() : (p[sort as keyof TListedProject] as string | number | null);
  matches = [...matches].sort((a, b) => {
    if (sort === undefined) return b.id - a.id;
    const [x, y] = [value(a), value(b)];
    return (x === y ? a.id - b.id : (x ?? '') < (y ?? '') ? -1 : 1) * direction;
  });
  const page = Number(params.page ?? 1);
  const perPage = Number(params.per_page ?? 25);
  return { status: 200, data: { data: matches.slice((page - 1) * perPage, page * perPage), page: { page, per_page: perPage, total: matches.length } } };
}
