import { describe, expect, it } from 'vitest';
import { checkPassword, PASSWORD_RULES, validateNewPassword, validatePasswordChange } from './password-rules';

describe('password rules (spec §5)', () => {
  it('lists the checklist in the spec wording', () => {
    expect(PASSWORD_RULES.map((r) => r.label)).toEqual([
      'Minimum 8 characters',
      'One uppercase letter',
      'One lowercase letter',
      'One number',
      'One special character (!@#$%^&*)',
    ]);
  });

  it.each([
    ['Abcdef1!', { length: true, uppercase: true, lowercase: true, number: true, special: true }],
    ['Abc1!', { length: false, uppercase: true, lowercase: true, number: true, special: true }],
    ['abcdefg1!', { length: true, uppercase: false, lowercase: true, number: true, special: true }],
    ['ABCDEFG1!', { length: true, uppercase: true, lowercase: false, number: true, special: true }],
    ['Abcdefgh!', { length: true, uppercase: true, lowercase: true, number: false, special: true }],
    ['Abcdefgh1', { length: true, uppercase: true, lowercase: true, number: true, special: false }],
    ['Abcdefg1?', { length: true, uppercase: true, lowercase: true, number: true, special: true }],
  ])('checks %s', (password, checks) => {
    expect(checkPassword(password)).toEqual(checks);
  });
});

describe('validatePasswordChange: the first failing check, in order', () => {
  const good = { current: 'Old-pass1', next: 'New-pass1', confirm: 'New-pass1' };

  it.each([
    [{ ...good, current: '' }, 'All fields are required'],
    [{ ...good, confirm: '' }, 'All fields are required'],
    [{ current: '', next: 'short', confirm: 'other' }, 'All fields are required'],
    [{ ...good, next: 'weak', confirm: 'different' }, 'Password does not meet all requirements'],
    [{ ...good, confirm: 'New-pass2' }, 'Passwords do not match'],
    [{ ...good, current: 'New-pass1' }, 'New password must be different from the current one'],
    [good, null],
  ])('%o → %s', (form, message) => {
    expect(validatePasswordChange(form)).toBe(message);
  });
});

describe('validateNewPassword: a reset link’s checks, without a current password', () => {
  it.each([
    [{ next: '', confirm: '' }, 'All fields are required'],
    [{ next: 'New-pass1', confirm: '' }, 'All fields are required'],
    [{ next: 'weakpass', confirm: 'weakpass' }, 'Password does not meet all requirements'],
    [{ next: 'New-pass1', confirm: 'New-pass2' }, 'Passwords do not match'],
    [{ next: 'New-pass1', confirm: 'New-pass1' }, null],
  ])('%o → %s', (form, message) => {
    expect(validateNewPassword(form)).toBe(message);
  });
});
