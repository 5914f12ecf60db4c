// Small fetch wrappers so tests read as requests and answers.
export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON answers loosely
export async function call<T = any>(
  url: string,
  init: { method?: string; token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the test sees the raw text.
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

export async function login(api: string, username: string, password: string): Promise<string> {
  const answer = await call<{ token: string }>(`${api}/login`, { json: { username, password } });
  if (answer.status !== 200) throw new Error(`login failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.token;
}
