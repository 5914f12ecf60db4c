// Direct API calls for what a test needs as a precondition rather than as the thing under test.

export interface ApiSession {
  token: string;
  user: { id: number; firstname: string; lastname: string; company_id: number } & Record<string, unknown>;
}

async function call(baseUrl: string, method: string, route: string, token: string | null, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const answer = await fetch(`${baseUrl}/api/v1${route}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${route} answered ${answer.status}: ${text}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

export async function apiLogin(baseUrl: string, username: string, password: string): Promise<ApiSession> {
  return (await call(baseUrl, 'POST', '/login', null, { username, password })) as ApiSession;
}

export async function apiLogout(baseUrl: string, token: string): Promise<void> {
  await call(baseUrl, 'POST', '/logout', token);
}

/** The user object as the web app keeps it in localStorage 'user': the login's user plus its company. */
export async function apiStoredUser(baseUrl: string, session: ApiSession): Promise<Record<string, unknown>> {
  const company = (await call(baseUrl, 'GET', `/company/${session.user.company_id}`, session.token)) as { data: unknown[] };
  return { ...session.user, company: company.data[0] ?? null };
}

export async function apiCreateProject(baseUrl: string, token: string, name: string): Promise<number> {
  const answer = (await call(baseUrl, 'POST', '/study-petitions', token, { name, valid: true, status: 'Pendant' })) as {
    data: Array<{ id: number }>;
  };
  const id = answer.data[0]?.id;
  if (id === undefined) throw new Error(`creating project ${name} returned no id`);
  return id;
}

/** A row of the project's files as the API lists it, with the fields the tests read. */
export interface ListedFile {
  id: number;
  file: string;
  kind: string;
  sha256: string;
  duplicate_of: number | null;
  processing: { status: string; summary: Record<string, unknown> | null };
}

export async function apiListFiles(baseUrl: string, token: string, projectId: number): Promise<ListedFile[]> {
  return ((await call(baseUrl, 'GET', `/study-petitions-files?study_petition_id=${projectId}`, token)) as { data: ListedFile[] }).data;
}
