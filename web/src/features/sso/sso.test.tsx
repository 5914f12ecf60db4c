// The login screen's single sign-on part, over the real API functions with a fake server.
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { appRoutes } from '../../app/router';
import { fakeApi, type FakeCall } from '../../test/fake-api';
import { answerProjects } from '../../test/fake-projects';
import { aProject, aUser } from '../../test/fixtures';
import { renderAt } from '../../test/render';
import { SSO_ERROR_MESSAGES } from './sso-messages';

const company = { id: 7, companyname: 'Acme Imaging', created_at: '2026-01-01', updated_at: '2026-01-01', quota_bytes: null, used_bytes: 0 };
const { company: _omitted, ...loginUser } = aUser();
const CODE = 'c'.repeat(43);
const sso = { company_name: 'St Mary Hospital', start_url: '/api/v1/sso/3/start', password_login_allowed: true };

describe('single sign-on on the login screen', () => {
  it("offers 'Sign in with <company>' once the typed username's company signs in through its provider, and not for others", async () => {
    const api = fakeApi({
      'POST /sso/discover': ({ data }) => ({ status: 200, data: { data: { sso: (data as { username: string }).username === 'ada' ? sso : null } } }),
    });
    const { user } = renderAt(appRoutes, '/');
    const field = await screen.findByLabelText('Username');
    await user.type(field, 'ada');
    expect(await screen.findByRole('button', { name: 'Sign in with St Mary Hospital' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Log in' })).toBeVisible();

    await user.type(field, 'm');
    await waitFor(() => expect(api.callsTo('POST', '/sso/discover').at(-1)?.data).toEqual({ username: 'adam' }));
    expect(screen.queryByRole('button', { name: /^Sign in with/ })).toBeNull();
  });

  it('trades the one-time code the provider left in the fragment for the session, and opens the projects', async () => {
    window.history.replaceState(null, '', `/#sso=${CODE}`);
    const api = fakeApi({
      'POST /sso/complete': { status: 200, data: { token: 'tok-sso', user: loginUser } },
      'GET /company/7': { status: 200, data: { data: [company] } },
      'GET /study-petitions': (call: FakeCall) => answerProjects([aProject()], call),
    });
    const { router } = renderAt(appRoutes, '/');
    expect(await screen.findByRole('heading', { name: 'Projects' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
    expect(api.callsTo('POST', '/sso/complete')).toHaveLength(1);
    expect(api.callsTo('POST', '/sso/complete')[0]?.data).toEqual({ code: CODE });
    expect(localStorage.getItem('token')).toBe('tok-sso');
    expect(JSON.parse(localStorage.getItem('user') ?? '{}')).toEqual({ ...loginUser, company });
    expect(window.location.hash).toBe('');
  });

  it('says so when the one-time code was already used or expired, and stays signed out', async () => {
    const message = 'This sign-in has expired or was already used. Please sign in again.';
    window.history.replaceState(null, '', `/#sso=${CODE}x`);
    fakeApi({ 'POST /sso/complete': { status: 401, data: { message } } });
    const { router } = renderAt(appRoutes, '/');
    expect(await screen.findByText(message)).toBeVisible();
    expect(router.state.location.pathname).toBe('/');
    expect(localStorage.getItem('token')).toBeNull();
    expect(screen.queryByText('Signing you in…')).toBeNull();
  });

  it('says in words why a sign-in through the provider came back without a session', async () => {
    window.history.replaceState(null, '', '/#sso_error=unknown_user');
    fakeApi({});
    renderAt(appRoutes, '/');
    expect(await screen.findByText(SSO_ERROR_MESSAGES.unknown_user)).toBeVisible();
    expect(window.location.hash).toBe('');
  });

  it("shows the server's sentence when the company turned password sign-in off", async () => {
    const message = "Password sign-in is turned off for St Mary Hospital. Use 'Sign in with St Mary Hospital' instead.";
    fakeApi({ 'POST /login': { status: 403, data: { message } }, 'POST /sso/discover': { status: 200, data: { data: { sso: { ...sso, password_login_allowed: false } } } } });
    const { user } = renderAt(appRoutes, '/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'Secret-1');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Invalid Login');
    expect(alert).toHaveTextContent(message);
    expect(await screen.findByText('St Mary Hospital users sign in through their company.')).toBeVisible();
  });
});
