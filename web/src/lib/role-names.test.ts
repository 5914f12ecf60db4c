import { describe, expect, it } from 'vitest';
import { isAdministrator, roleName } from './role-names';

describe('roleName (spec §3)', () => {
  it.each([
    [1, 'User'],
    [2, 'CompanyAdmin'],
    [3, 'SysUser'],
    [4, 'SysAdmin'],
    [0, 'Unknown'],
    [5, 'Unknown'],
    [null, 'Unknown'],
  ])('%s → %s', (role, name) => {
    expect(roleName(role)).toBe(name);
  });
});

describe('isAdministrator (DESIGN §5)', () => {
  it.each([
    [1, false],
    [2, true],
    [3, false],
    [4, true],
    [null, false],
  ])('%s → %s', (role, admin) => {
    expect(isAdministrator(role)).toBe(admin);
  });
});
