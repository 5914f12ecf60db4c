import { checkPassword, passwordIsValid, PASSWORD_SPECIALS } from '@portal/contract';
import { describe, expect, it } from 'vitest';
import { PasswordHasher, verifyPassword } from './password.js';
import { parseRole } from '../users/index.js';

describe('password rules (spec §5)', () => {
  it.each([
    ['Abcdef1!', true],
    ['Abcde1!', false], // 7 characters
    ['abcdef1!', false], // no uppercase
    ['ABCDEF1!', false], // no lowercase
    ['Abcdefg!', false], // no number
    ['Abcdefg1', false], // no special
    ['Ábcdéf1!', false], // accented capitals are not A-Z
    ['Abcdef1~', true], // further punctuation counts as special
  ])('%s is valid: %s', (password, valid) => {
    expect(passwordIsValid(password)).toBe(valid);
  });

  it('reports each rule separately for the live checklist', () => {
    expect(checkPassword('abc')).toEqual({ length: false, uppercase: false, lowercase: true, number: false, special: false });
  });

  it('counts every one of !@#$%^&* as special', () => {
    for (const c of '!@#$%^&*') {
      expect(PASSWORD_SPECIALS).toContain(c);
      expect(passwordIsValid(`Abcdef1${c}`)).toBe(true);
    }
  });
});

describe('argon2id hashes', () => {
  it('verify the right password only, and never throw on garbage hashes', async () => {
    const hash = await new PasswordHasher().hash('Abcdef1!');
    expect(hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    expect(await verifyPassword(hash, 'Abcdef1!')).toBe(true);
    expect(await verifyPassword(hash, 'Abcdef1?')).toBe(false);
    expect(await verifyPassword('not a hash', 'Abcdef1!')).toBe(false);
  });

  it('verify a hash made at another cost (as tests make them) by the cost it names', async () => {
    const hash = await new PasswordHasher({ memoryCost: 1024, timeCost: 1 }).hash('Abcdef1!');
    expect(hash.startsWith('$argon2id$v=19$m=1024,t=1,p=1$')).toBe(true);
    expect(await verifyPassword(hash, 'Abcdef1!')).toBe(true);
    expect(await verifyPassword(hash, 'Abcdef1?')).toBe(false);
  });
});

describe('role names', () => {
  it.each([
    ['1', 1],
    ['User', 1],
    ['companyadmin', 2],
    ['SysUser', 3],
    [' 4 ', 4],
    ['SysAdmin', 4],
    ['5', undefined],
    ['root', undefined],
  ])('%s → %s', (input, role) => {
    expect(parseRole(input)).toBe(role);
  });
});
