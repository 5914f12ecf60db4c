import { ROLES, type TRole } from '@portal/contract';
import { describe, expect, it } from 'vitest';
import { can, companyScope, type Action } from './permissions.js';

const OWN = 10;
const OTHER = 20;
const actor = (role: TRole) => ({ userId: 1, companyId: OWN, role });

// DESIGN §5 written out cell by cell: role → action → [own company, other company].
const MATRIX: Record<TRole, Record<Action, [boolean, boolean]>> = {
  [ROLES.User]: {
    read: [true, false],
    download: [true, false],
    create: [true, false],
    update: [true, false],
    delete: [true, false],
    manageUsers: [false, false],
    manageCompanies: [false, false],
    setDeidentification: [false, false],
    receiveProjectKey: [true, false],
    setRules: [false, false],
    review: [false, false],
  },
  [ROLES.CompanyAdmin]: {
    read: [true, false],
    download: [true, false],
    create: [true, false],
    update: [true, false],
    delete: [true, false],
    manageUsers: [true, false],
    manageCompanies: [false, false],
    setDeidentification: [false, false],
    receiveProjectKey: [true, false],
    setRules: [false, false],
    review: [false, false],
  },
  [ROLES.SysUser]: {
    read: [true, true],
    download: [true, true],
    create: [false, false],
    update: [false, false],
    delete: [false, false],
    manageUsers: [false, false],
    manageCompanies: [false, false],
    setDeidentification: [false, false],
    receiveProjectKey: [false, false],
    setRules: [true, true],
    review: [true, true],
  },
  [ROLES.SysAdmin]: {
    read: [true, true],
    download: [true, true],
    create: [true, true],
    update: [true, true],
    delete: [true, true],
    manageUsers: [true, true],
    manageCompanies: [true, true],
    setDeidentification: [true, true],
    receiveProjectKey: [false, false],
    setRules: [true, true],
    review: [true, true],
  },
};

const cases = Object.entries(MATRIX).flatMap(([role, actions]) =>
  Object.entries(actions).flatMap(([action, [own, other]]) => [
    { role: Number(role) as TRole, action: action as Action, company: 'own', companyId: OWN, allowed: own },
    { role: Number(role) as TRole, action: action as Action, company: 'other', companyId: OTHER, allowed: other },
  ]),
);

describe('permission matrix (DESIGN §5)', () => {
  it.each(cases)('role $role, $action on $company company → $allowed', ({ role, action, companyId, allowed }) => {
    expect(can(actor(role), action, companyId)).toBe(allowed);
  });

  it('scopes queries of partner roles to their company and of Sys roles to all', () => {
    expect(companyScope(actor(ROLES.User))).toBe(OWN);
    expect(companyScope(actor(ROLES.CompanyAdmin))).toBe(OWN);
    expect(companyScope(actor(ROLES.SysUser))).toBe('all');
    expect(companyScope(actor(ROLES.SysAdmin))).toBe('all');
  });
});
