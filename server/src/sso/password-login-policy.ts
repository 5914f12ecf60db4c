// A company whose users must sign in through its identity provider refuses their password, with
// a sentence that points to the button. A SysAdmin keeps their password whatever their company's
// setting: a provider that is down or misconfigured must not lock out the one who can fix it.
import { ROLES } from '@portal/contract';
import type { PasswordLoginRefusal } from '../auth/index.js';
import type { CompaniesRepository } from '../companies/index.js';
import type { SsoSettingsRepository } from './sso-settings.repository.js';

export function passwordLoginMessage(companyName: string): string {
  return `Password sign-in is turned off for ${companyName}. Use 'Sign in with ${companyName}' instead.`;
}

export function passwordLoginPolicy(settings: SsoSettingsRepository, companies: CompaniesRepository): PasswordLoginRefusal {
  return async (user) => {
    if (user.role === ROLES.SysAdmin) return null;
    const sso = await settings.find(user.company_id);
    if (!sso?.enabled || sso.password_login_allowed) return null;
    const company = await companies.findById(user.company_id, 'all');
    return passwordLoginMessage(company?.companyname ?? 'your company');
  };
}
