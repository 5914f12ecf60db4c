// A suite's usual start: its own company, one User signed in in a fresh browser session, and a
// project of theirs to work in.
import type { Browser } from 'playwright-core';
import { apiCreateProject, apiLogin } from './api.js';
import { openSession, type Session } from './browser.js';
import type { Portal } from './portal.js';
import { signIn, type Credentials } from './ui.js';

export interface ProjectSetup {
  company: string;
  user: Credentials & { firstname: string; lastname: string };
  project: string;
}

export async function signInWithProject(portal: Portal, browser: Browser, setup: ProjectSetup): Promise<{ session: Session; projectId: number }> {
  const companyId = await portal.createCompany(setup.company);
  await portal.createUser({ companyId, ...setup.user, role: 'User' });
  const { token } = await apiLogin(portal.url, setup.user.username, setup.user.password);
  const projectId = await apiCreateProject(portal.url, token, setup.project);
  const session = await openSession(browser, portal.url);
  await signIn(session.page, setup.user);
  return { session, projectId };
}
