import type { TProjectFile } from '@portal/contract';
import type { FakeCall, FakeReply } from './fake-api';

type Params = Record<string, string | number | undefined>;

/**
 * GET /study-petitions-files answered as docs/api.md 'Finding files and studies' says: without
 * paging parameters every file; with them one page of the matches and their total. Kept to what
 * the web app sends; the server's own tests check the real thing on both databases.
 */
export function answerFiles(files: readonly TProjectFile[], call: FakeCall): FakeReply {
  const params = (call.params ?? {}) as Params;
  if (params.page === undefined && params.per_page === undefined && params.q === undefined && params.sort === undefined && params.status === undefined) {
    return { status: 200, data: { data: files } };
  }
  const q = String(params.q ?? '').toLowerCase();
  const statuses = params.status === undefined ? null : String(params.status).split(',');
  let matches = files.filter((f) => f.file.toLowerCase().includes(q) && (statuses === null || statuses.includes(f.processing.status)));
  const sort = params.sort as keyof TProjectFile | undefined;
  const direction = params.order === 'desc' ? -1 : 1;
  matches = [...matches].sort((a, b) => {
    if (sort === undefined) return b.id - a.id;
    const x = sort === 'file' ? a.file.toLowerCase() : a[sort];
    const y = sort === 'file' ? b.file.toLowerCase() : b[sort];
    return (x === y ? a.id - b.id : (x ?? 0) < (y ?? 0) ? -1 : 1) * direction;
  });
  const page = Number(params.page ?? 1);
  const perPage = Number(params.per_page ?? 25);
  return { status: 200, data: { data: matches.slice((page - 1) * perPage, page * perPage), page: { page, per_page: perPage, total: matches.length } } };
}

/** The files of a project as the server keeps them: listed (searched, sorted, paged) and deleted one by one. */
export function filesRoutes(files: readonly TProjectFile[]): Record<string, (call: FakeCall) => FakeReply> {
  let listed = files;
  return {
    'GET /study-petitions-files': (call) => answerFiles(listed, call),
    ...Object.fromEntries(
      files.map((f) => [
        `PUT /study-petitions-files-delete/${f.id}`,
        () => {
          listed = listed.filter((l) => l.id !== f.id);
          return { status: 200, data: { data: [f] } };
        },
      ]),
    ),
  };
}
