// Walks a sign-in through a provider the way a browser does (redirects, cookies per origin, the
// provider's login form), step by step, so tests can stop or tamper between the steps.
export class MiniBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  /** `address`: the client address the portal sees (X-Forwarded-For; the portal must trust its proxy). */
  constructor(private readonly address?: string) {}

  /** One request without following redirects; cookies kept per origin like a browser's. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url);
    const jar = this.jars.get(target.origin) ?? new Map<string, string>();
    this.jars.set(target.origin, jar);
    const headers: Record<string, string> = this.address ? { 'x-forwarded-for': this.address } : {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(target, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const [name = '', ...value] = pair.trim().split('=');
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value.join('=') === '') jar.delete(name);
      else jar.set(name, value.join('='));
    }
    return response;
  }

  /** Follows redirects from `url` until one leads to `stopAt` (not requested) or a page answers. */
  async follow(url: string, stopAt?: string): Promise<{ url: string; response?: Response }> {
    let current = url;
    for (let hops = 0; hops < 20; hops += 1) {
      if (stopAt && current.startsWith(stopAt)) return { url: current };
      const response = await this.request(current);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: current, response };
      await response.arrayBuffer();
      current = new URL(location, current).toString();
    }
    throw new Error(`too many redirects from ${url}`);
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jars.get(origin)?.get(name);
  }
}

/**
 * From the portal's start link to the provider's answer: opens the link, signs in at the provider's
 * login page as `login`, and answers the callback URL the provider sends the browser to (not yet opened).
 */
export async function signInAtProvider(browser: MiniBrowser, startUrl: string, login: string, callbackPrefix: string): Promise<string> {
  const page = await browser.follow(startUrl, callbackPrefix);
  if (!page.response) return page.url;
  const html = await page.response.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no login form at ${page.url}: ${html.slice(0, 300)}`);
  const submitted = await browser.request(new URL(action.replace(/&amp;/g, '&'), page.url).toString(), { form: { prompt: 'login', login, password: 'any' } });
  const location = submitted.headers.get('location');
  if (!location) throw new Error(`the provider did not redirect after its login (${submitted.status})`);
  const back = await browser.follow(new URL(location, page.url).toString(), callbackPrefix);
  if (back.response) throw new Error(`the provider stopped at ${back.url} (${back.response.status}): ${(await back.response.text()).slice(0, 300)}`);
  return back.url;
}
