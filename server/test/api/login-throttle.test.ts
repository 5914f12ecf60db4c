import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../databases.js';
import { makeUser, PASSWORD } from '../factories.js';
import { call, type Answer } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';

const WRONG = 'Wr0ng!Guess';
const MESSAGE = /^Too many failed login attempts\. Try again in \d+ minutes?\.$/;

let addressCounter = 0;
/** A fresh client address; the server trusts X-Forwarded-For as it would behind a proxy. */
const newAddress = () => {
  addressCounter += 1;
  return `198.51.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
};

describe.each(dialects())('password throttle on %s', (dialect) => {
  let server: TestServer;
  // The throttle's time stands still unless a test moves it: on a loaded machine a burst of
  // argon2 checks can outlast a one-second delay, which would let a real clock admit one more.
  let time = Date.now();
  const passTime = (ms: number) => {
    time += ms;
  };
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      TRUST_PROXY: 'true',
      LOGIN_MAX_FAILURES_PER_PAIR: '5',
      LOGIN_MAX_FAILURES_PER_USER: '10',
      LOGIN_MAX_FAILURES_PER_IP: '30',
      LOGIN_DELAY_BASE_SECONDS: '1',
      LOGIN_DELAY_MAX_SECONDS: '2',
    }, { clock: () => time });
  });
  afterAll(() => server.close());

  const loginFrom = (address: string, username: string, password: string) =>
    call(`${server.api}/login`, { json: { username, password }, headers: { 'x-forwarded-for': address } });

  const statuses = (answers: Answer[]) => answers.map((a) => a.status).sort();

  function expectThrottled(answer: Answer<{ message?: string }>, maxSeconds: number) {
    expect(answer.status).toBe(429);
    expect(answer.body.message).toMatch(MESSAGE);
    const retryAfter = Number(answer.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  }

  it('checks at most 5 of 60 parallel wrong passwords from one address, and refuses the rest with 429', async () => {
    const user = await makeUser(server.services);
    const address = newAddress();
    const answers = await Promise.all(Array.from({ length: 60 }, () => loginFrom(address, user.username, WRONG)));
    expect(statuses(answers).filter((s) => s === 401)).toHaveLength(5);
    const refused = answers.filter((a) => a.status !== 401);
    expect(refused).toHaveLength(55);
    for (const answer of refused) expectThrottled(answer, 900);
    expect(refused[0]!.body.message).toBe('Too many failed login attempts. Try again in 15 minutes.');
  });

  it('checks at most 10 of 60 parallel wrong passwords for one account from 60 addresses', async () => {
    const user = await makeUser(server.services);
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => loginFrom(newAddress(), user.username, WRONG)),
    );
    expect(statuses(answers).filter((s) => s === 401)).toHaveLength(10);
    for (const answer of answers.filter((a) => a.status !== 401)) expectThrottled(answer, 1);
  });

  it("lets the owner sign in from another address while an attacker's address is refused", async () => {
    const user = await makeUser(server.services);
    const attacker = newAddress();
    for (let i = 0; i < 5; i += 1) expect((await loginFrom(attacker, user.username, WRONG)).status).toBe(401);
    expectThrottled(await loginFrom(attacker, user.username, PASSWORD), 900);

    expect((await loginFrom(newAddress(), user.username, PASSWORD)).status).toBe(200);
    expectThrottled(await loginFrom(attacker, user.username, PASSWORD), 900);
  });

  it('stops one address trying many usernames at 30 failures, and no one else', async () => {
    const address = newAddress();
    const tries = await Promise.all(
      Array.from({ length: 30 }, (_, i) => loginFrom(address, `sprayed-${dialect}-${i}`, WRONG)),
    );
    expect(statuses(tries).every((s) => s === 401)).toBe(true);
    const user = await makeUser(server.services);
    expectThrottled(await loginFrom(address, user.username, PASSWORD), 900);
    expect((await loginFrom(newAddress(), user.username, PASSWORD)).status).toBe(200);
  });

  it('makes an account guessed from many addresses wait a doubling, capped delay, then lets its owner in', async () => {
    const user = await makeUser(server.services);
    const guesses = await Promise.all(
      Array.from({ length: 10 }, () => loginFrom(newAddress(), user.username, WRONG)),
    );
    expect(statuses(guesses).every((s) => s === 401)).toBe(true);

    // Inside the delay every attempt waits, the owner's too; refused attempts do not lengthen it.
    expectThrottled(await loginFrom(newAddress(), user.username, PASSWORD), 1);
    for (let i = 0; i < 10; i += 1) expectThrottled(await loginFrom(newAddress(), user.username, WRONG), 1);
    passTime(1_100);

    expect((await loginFrom(newAddress(), user.username, WRONG)).status).toBe(401);
    const second = await loginFrom(newAddress(), user.username, PASSWORD);
    expectThrottled(second, 2);
    expect(second.headers.get('retry-after')).toBe('2');
    passTime(2_100);

    expect((await loginFrom(newAddress(), user.username, WRONG)).status).toBe(401);
    expect((await loginFrom(newAddress(), user.username, PASSWORD)).headers.get('retry-after')).toBe('2');
    passTime(2_100);

    expect((await loginFrom(newAddress(), user.username, PASSWORD)).status).toBe(200);
    // Signing in started the account over: a mistake right after costs no wait.
    expect((await loginFrom(newAddress(), user.username, WRONG)).status).toBe(401);
    expect((await loginFrom(newAddress(), user.username, PASSWORD)).status).toBe(200);
  });

  // Last: it moves the throttle's clock by more than a window.
  it('forgets counters a whole window old, and only those, so sprayed usernames do not pile up', async () => {
    const db = server.services.handle.db;
    const keysLike = (text: string) =>
      db.selectFrom('login_throttle').select('key').where('key', 'like', `%${text}%`).execute();
    /** The address's own counter, its pairs and shares (a LIKE on the address alone would also match 198.51.0.10 for .1). */
    const keysOfAddress = (address: string) =>
      db
        .selectFrom('login_throttle')
        .select('key')
        .where((eb) => eb.or([eb('key', '=', `address:${address}`), eb('key', 'like', `pair:${address} %`), eb('key', 'like', `share:${address} %`)]))
        .execute();
    const sprayer = newAddress();
    const sprayed = Array.from({ length: 20 }, (_, i) => `swept-${dialect}-${i}`);
    for (const name of sprayed) expect((await loginFrom(sprayer, name, WRONG)).status).toBe(401);
    // A pair, the address's share and an account per username.
    expect(await keysLike(`swept-${dialect}-`)).toHaveLength(60);

    passTime(10 * 60_000);
    expect(await server.services.sweepThrottle()).toBeGreaterThanOrEqual(0);
    expect(await keysLike(`swept-${dialect}-`)).toHaveLength(60);

    const user = await makeUser(server.services);
    const attacker = newAddress();
    for (let i = 0; i < 5; i += 1) expect((await loginFrom(attacker, user.username, WRONG)).status).toBe(401);
    passTime(6 * 60_000);
    expect(await server.services.sweepThrottle()).toBeGreaterThanOrEqual(61);
    expect(await keysLike(`swept-${dialect}-`)).toHaveLength(0);
    expect(await keysOfAddress(sprayer)).toHaveLength(0);
    // Six minutes into its fifteen, the attacker's address is still refused for this account.
    expect(await keysOfAddress(attacker)).toHaveLength(3);
    expectThrottled(await loginFrom(attacker, user.username, PASSWORD), 9 * 60);
    expect((await loginFrom(newAddress(), user.username, PASSWORD)).status).toBe(200);
  });
});
