// Time-based one-time codes (RFC 6238: SHA-1, 6 digits, 30-second steps) through otplib. A code is
// taken for the current step or one step either side (a phone's clock a little off, a code typed
// as it turned), and only for a step after the last one accepted, so the same code never works twice.
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

export const STEP_SECONDS = 30;
/** One step either side: the window [now − 30 s, now + 30 s] meets the previous, current and next step. */
const TOLERANCE_SECONDS = STEP_SECONDS;

export function newSecret(): string {
  // 20 bytes: the size of a SHA-1 key, as RFC 4226 recommends.
  return generateSecret({ length: 20 });
}

/**
 * The step a right code belongs to, or null for a wrong one, one of a step at or before
 * `lastUsedStep`, or anything that is not six digits.
 */
export async function acceptedStep(secret: string, code: string, lastUsedStep: number | null, nowMs: number): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(nowMs / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(lastUsedStep === null ? {} : { afterTimeStep: lastUsedStep }),
  });
  // A TOTP answer carries its step (an HOTP one, never made here, would not).
  if (!result.valid || !('timeStep' in result)) return null;
  return result.timeStep;
}

/** What an authenticator app reads: the otpauth:// address and its QR code as a data: URL (the CSP allows img-src data:). */
export async function setupFor(secret: string, issuer: string, account: string): Promise<{ secret: string; otpauth_url: string; qr_code: string }> {
  const otpauthUrl = generateURI({ issuer, label: account, secret });
  const qrCode = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
  return { secret, otpauth_url: otpauthUrl, qr_code: qrCode };
}
