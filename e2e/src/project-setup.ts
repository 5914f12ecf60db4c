// A suite's usual start: its own company, one User signed in in a fresh browser session, and a
// project of theirs to work in.
import type { Browser } from 'playwright-core';
import { apiCreateProject, apiLogin } from './api.js';
import { openSession, type Session } from './browser.js';
import type { Portal } from './portal.js';
import { startRelay, type Relay } from './relay.js';
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

/**
 * A User of a company of their own, signed in through a relay in front of the portal (a suite that
 * holds or cuts uploads' requests), with an API token of theirs for setting up and checking.
 */
export async function signInBehindRelay(
  portal: Portal,
  browser: Browser,
  setup: Omit<ProjectSetup, 'project'>,
): Promise<{ session: Session; relay: Relay; token: string }> {
  const companyId = await portal.createCompany(setup.company);
  await portal.createUser({ companyId, ...setup.user, role: 'User' });
  const { token } = await apiLogin(portal.url, setup.user.username, setup.user.password);
  const relay = await startRelay(portal.url);
  const session = await openSession(browser, relay.url);
  await signIn(session.page, setup.user);
  return { session, relay, token };
}
