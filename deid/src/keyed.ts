import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

interface Keyed {
  /** The HMAC already keyed: each digest starts from a copy of it instead of hashing the key again. */
  mac: ReturnType<typeof hmac.create>;
  /** Digests already made with this key object, by purpose and message. */
  made: Map<string, Uint8Array>;
}

/**
 * Per key object, so that what it remembers lives as long as the caller's key does: a browser
 * worker's batch of files, one upload's processing on the server. A study's files share most of
 * their UIDs and their patient: 7 of a CT slice's 10 digests were made for the file before it.
 */
const keyedBy = new WeakMap<Uint8Array, Keyed>();
const REMEMBERED = 4096;

/**
 * HMAC-SHA256 of a purpose-prefixed message, so one key never gives the same digest for two uses.
 * The digest may be shared with other callers: it is read, never changed. A key's bytes are never
 * changed once given.
 */
export function keyedDigest(key: Uint8Array, purpose: string, message: string): Uint8Array {
  let keyed = keyedBy.get(key);
  if (!keyed) {
    keyed = { mac: hmac.create(sha256, key), made: new Map() };
    keyedBy.set(key, keyed);
  }
  const input = `${purpose}\u0000${message}`;
  let digest = keyed.made.get(input);
  if (!digest) {
    digest = keyed.mac.clone().update(encoder.encode(input)).digest();
    if (keyed.made.size >= REMEMBERED) keyed.made.clear();
    keyed.made.set(input, digest);
  }
  return digest;
}

export function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out.toUpperCase();
}

/** 12 hex digits (48 bits): a collision between two patients is about 1 in 10⁵ for 10⁵ patients. */
const PSEUDONYM_HEX_DIGITS = 12;
export const PSEUDONYM_PATTERN = /^P-[0-9A-F]{12}$/;

export function pseudonymOf(patientId: string, key: Uint8Array): string {
  return `P-${hex(keyedDigest(key, 'patient', patientId.trim())).slice(0, PSEUDONYM_HEX_DIGITS)}`;
}

/** `2.25.` + the first 128 bits of the digest as a decimal: at most 44 characters, below 2^128 as PS3.5 B.2 asks. */
export function replacementUid(uid: string, key: Uint8Array): string {
  const digest = keyedDigest(key, 'uid', uid.trim().replace(/\0+$/, ''));
  return `2.25.${BigInt(`0x${hex(digest.subarray(0, 16))}`).toString(10)}`;
}

/** Days to subtract from every date of one patient: 1 to 3652 (up to ten years back), never 0. */
export function dateShiftDays(patientKey: string, key: Uint8Array): number {
  const d = keyedDigest(key, 'date-shift', patientKey);
  return 1 + (((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0) % 3652;
}
