// The Content-Security-Policy's upgrade-insecure-requests: on plain http it makes the browser ask
// for the page's scripts over https, which a portal without TLS (http://host:8080 on a LAN) does
// not serve, and the page stays blank. So it is sent only where the page itself came over https.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './http.js';
import { startTestServer, type TestServer } from './server.js';

const policyOf = async (url: string, headers: Record<string, string> = {}) => (await call(url, { headers })).headers.get('content-security-policy') ?? '';

describe('the Content-Security-Policy', () => {
  let direct: TestServer;
  let proxied: TestServer;
  beforeAll(async () => {
    [direct, proxied] = await Promise.all([startTestServer('sqlite'), startTestServer('sqlite', { TRUST_PROXY: 'true' })]);
  });
  afterAll(async () => {
    await Promise.all([direct.close(), proxied.close()]);
  });

  it('does not ask a browser on plain http to upgrade, even when an untrusted header claims https', async () => {
    for (const path of ['/', '/home', '/api/v1/health']) {
      const policy = await policyOf(`${direct.url}${path}`);
      expect(policy, path).toContain("default-src 'self'");
      expect(policy, path).not.toContain('upgrade-insecure-requests');
    }
    expect(await policyOf(`${direct.url}/`, { 'x-forwarded-proto': 'https' })).not.toContain('upgrade-insecure-requests');
  });

  it('asks for the upgrade behind a trusted proxy that says the page came over https, and only then', async () => {
    const https = await policyOf(`${proxied.url}/`, { 'x-forwarded-proto': 'https' });
    expect(https).toContain("default-src 'self'");
    expect(https.split(';')).toContain('upgrade-insecure-requests');
    expect(await policyOf(`${proxied.url}/`, { 'x-forwarded-proto': 'http' })).not.toContain('upgrade-insecure-requests');
    expect(await policyOf(`${proxied.url}/`)).not.toContain('upgrade-insecure-requests');
  });
});
