// Which addresses a webhook may go to, and the check made on the address an attempt connects to.
import { describe, expect, it } from 'vitest';
import { startReceiver } from '../../test/webhook-receiver.js';
import { isPrivateAddress } from './webhook-address.js';
import { attemptDelivery } from './webhook-sender.js';

describe('webhook addresses', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', '64:ff9b::a00:1', 'ff02::1'])(
    'counts %s as private',
    (address) => expect(isPrivateAddress(address)).toBe(true),
  );

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '::ffff:8.8.8.8', '2606:4700:4700::1111'])('counts %s as public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('refuses, at the moment it connects, a host name that resolves to a loopback address (DNS rebinding)', async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      const message = { url: `http://localhost:${port}/hook`, secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, messageId: 'msg_1', payload: '{}' };
      const refused = await attemptDelivery(message, { allowPrivate: false, timeoutMs: 2000, now: new Date() });
      expect(refused).toEqual({ ok: false, statusCode: null, error: expect.stringMatching(/^The address localhost \((127\.0\.0\.1|::1)\) is on a loopback, private or link-local network/) as unknown });
      const literal = await attemptDelivery({ ...message, url: `${receiver.url}/hook` }, { allowPrivate: false, timeoutMs: 2000, now: new Date() });
      expect(literal.error).toMatch(/^The address 127\.0\.0\.1 is on a loopback/);
      expect(receiver.received).toEqual([]);
      // Allowed, the same message goes through.
      expect(await attemptDelivery(message, { allowPrivate: true, timeoutMs: 2000, now: new Date() })).toEqual({ ok: true, statusCode: 204, error: null });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
