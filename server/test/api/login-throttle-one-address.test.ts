import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../databases.js';
import { makeUser, PASSWORD } from '../factories.js';
import { call } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';

const WRONG = 'Wr0ng!Guess';
const WINDOW_SECONDS = 60;

describe.each(dialects())('password throttle against one patient address on %s', (dialect) => {
  let server: TestServer;
  // The throttle's clock moves only when the test says: windows pass without waiting for them.
  let time = Date.now();
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      TRUST_PROXY: 'true',
      LOGIN_MAX_FAILURES_PER_PAIR: '5',
      LOGIN_MAX_FAILURES_PER_USER: '10',
      LOGIN_MAX_FAILURES_PER_IP: '30',
      LOGIN_THROTTLE_WINDOW_SECONDS: String(WINDOW_SECONDS),
      LOGIN_DELAY_BASE_SECONDS: '5',
      LOGIN_DELAY_MAX_SECONDS: '20',
    }, { clock: () => time });
  });
  afterAll(() => server.close());

  const loginFrom = (address: string, username: string, password: string) =>
    call(`${server.api}/login`, { json: { username, password }, headers: { 'x-forwarded-for': address } });

  it('never keeps the owner out when one address fails again each time its wait runs out, window after window', async () => {
    const user = await makeUser(server.services);
    const attacker = '203.0.113.50';
    const owner = '198.51.100.60';
    let failures = 0;
    /**
     * The attacker tries a wrong password every time the last answer lets it, for `seconds`, and
     * stops a second after a wrong password was checked: when the owner comes, the attacker has
     * just failed again.
     */
    const attackFor = async (seconds: number) => {
      const until = time + seconds * 1000;
      let status = 0;
      while (time < until || status !== 401) {
        const answer = await loginFrom(attacker, user.username, WRONG);
        status = answer.status;
        expect([401, 429]).toContain(status);
        if (status === 401) failures += 1;
        time += status === 429 ? Number(answer.headers.get('retry-after')) * 1000 : 1000;
      }
    };

    for (let round = 0; round < 4; round += 1) {
      // Two windows and a half: long enough for the pair's window to start over twice.
      await attackFor(2.5 * WINDOW_SECONDS);
      expect((await loginFrom(owner, user.username, PASSWORD)).status).toBe(200);
    }
    expect(failures).toBeGreaterThanOrEqual(4 * 2 * 5);
    // The attacker's own address is still held to its pair limit.
    const refused = await Promise.all(Array.from({ length: 6 }, () => loginFrom(attacker, user.username, WRONG)));
    expect(refused.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(1);
  });
});
