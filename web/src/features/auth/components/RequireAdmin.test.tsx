import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { appRoutes } from '../../../app/router';
import { fakeApi, type FakeCall } from '../../../test/fake-api';
import { answerProjects } from '../../../test/fake-projects';
import { aProject, aUser } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';

function signedInAs(role: 1 | 2 | 3 | 4) {
  localStorage.setItem('token', 'tok-1');
  localStorage.setItem('user', JSON.stringify(aUser({ role })));
}

const api = {
  'GET /study-petitions': (call: FakeCall) => answerProjects([aProject()], call),
  'GET /admin/users': { status: 200, data: { data: [], page: { page: 1, per_page: 5, total: 0 } } },
  'GET /admin/password-requests': { status: 200, data: { data: [], page: { page: 1, per_page: 1, total: 0 } } },
};

describe('the way to the administration screens', () => {
  it.each([
    [1, 'User'],
    [3, 'SysUser'],
  ] as const)('a %s (%s) has no Administration entry and /admin answers Access Denied', async (role, _name) => {
    signedInAs(role);
    fakeApi(api);
    const { user } = renderAt(appRoutes, '/home');
    await user.click(await screen.findByRole('button', { name: 'Account menu for Ada Lovelace' }));
    const menu = screen.getByRole('menu', { name: 'Account' });
    // A SysUser reviews what arrives (issue 35): 'To review' is theirs, Administration is not; everyone chooses their notifications.
    const everyone = ['Notifications', 'API tokens', 'Change Password', 'Two-factor sign-in', 'Logout'];
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent)).toEqual(role === 3 ? ['To review', ...everyone] : everyone);

    const fresh = renderAt(appRoutes, '/admin/users');
    expect(await fresh.findByText('Access Denied: You do not have permission to perform this action')).toBeInTheDocument();
    expect(fresh.queryByRole('heading', { name: 'Administration' })).not.toBeInTheDocument();
  });

  it.each([
    [2, 'CompanyAdmin'],
    [4, 'SysAdmin'],
  ] as const)('a %s (%s) opens Administration from the avatar menu', async (role, _name) => {
    signedInAs(role);
    fakeApi({ ...api, 'GET /admin/companies': { status: 200, data: { data: [], page: { page: 1, per_page: 500, total: 0 } } } });
    const { user, router } = renderAt(appRoutes, '/home');
    await user.click(await screen.findByRole('button', { name: 'Account menu for Ada Lovelace' }));
    await user.click(screen.getByRole('menuitem', { name: 'Administration' }));
    expect(await screen.findByRole('heading', { name: 'Administration' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/users');
  });

  it('sends a visitor without a session to the login screen', async () => {
    fakeApi({});
    const { router } = renderAt(appRoutes, '/admin/audit');
    expect(await screen.findByRole('button', { name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });
});
