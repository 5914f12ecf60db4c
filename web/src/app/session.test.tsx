import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, type FakeCall } from '../test/fake-api';
import { answerProjects } from '../test/fake-projects';
import { aProject, aUser } from '../test/fixtures';
import { renderAt } from '../test/render';
import { appRoutes } from './router';

const company = { id: 7, companyname: 'Acme Imaging', created_at: '2026-01-01', updated_at: '2026-01-01', quota_bytes: null, used_bytes: 0 };
const { company: _omitted, ...loginUser } = aUser();

function signedIn() {
  localStorage.setItem('token', 'tok-1');
  localStorage.setItem('user', JSON.stringify(aUser()));
}

const projectsApi = { 'GET /study-petitions': (call: FakeCall) => answerProjects([aProject()], call) };

describe('session', () => {
  it('sends signed-out visitors of /home to the login screen', async () => {
    const { router } = renderAt(appRoutes, '/home');
    expect(await screen.findByRole('button', { name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it("shows 'Invalid Login' when the credentials are refused", async () => {
    fakeApi({ 'POST /login': { status: 401, data: { message: 'Invalid username or password' } } });
    const { user } = renderAt(appRoutes, '/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('Invalid Login')).toBeVisible();
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('says when to try again, and not Invalid Login, when sign-in is throttled', async () => {
    const message = 'Too many failed login attempts. Try again in 15 minutes.';
    fakeApi({ 'POST /login': { status: 429, data: { message }, headers: { 'retry-after': '900' } } });
    const { user } = renderAt(appRoutes, '/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'Secret-1');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    const alert = await screen.findByRole('alert');
    expect(alert).not.toHaveTextContent('Invalid Login');
    expect(alert).toHaveTextContent(new RegExp(`^${message} \\(at \\d\\d?:\\d\\d`));
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('says which field is empty instead of signing in, and keeps Invalid Login for a refused password', async () => {
    const api = fakeApi({ 'POST /login': { status: 401, data: { message: 'Invalid username or password' } } });
    const { user } = renderAt(appRoutes, '/');
    await user.click(await screen.findByRole('button', { name: 'Log in' }));
    expect(screen.getByText('Username is required')).toBeVisible();
    expect(screen.getByText('Password is required')).toBeVisible();
    expect(screen.getByLabelText('Username')).toHaveFocus();
    expect(screen.queryByText('Invalid Login')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Username'), 'ada');
    expect(screen.queryByText('Username is required')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(screen.getByLabelText('Password')).toHaveFocus();
    expect(api.callsTo('POST', '/login')).toHaveLength(0);
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('Invalid Login')).toBeVisible();
    // Focus goes to the page's heading, so the next Tab starts at the top of the form again.
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveFocus());
  });

  it("shows 'Invalid Login' and keeps no session when the sign-in answer cannot be read", async () => {
    fakeApi({ 'POST /login': { status: 200, data: { token: 'tok-9', user: { ...loginUser, role: 'admin' } } } });
    const { user, router } = renderAt(appRoutes, '/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'Secret-1');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('Invalid Login')).toBeVisible();
    expect(router.state.location.pathname).toBe('/');
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('logs in, keeps the user with its company, and opens the projects', async () => {
    const api = fakeApi({
      'POST /login': { status: 200, data: { token: 'tok-9', user: loginUser } },
      'GET /company/7': { status: 200, data: { data: [company] } },
      ...projectsApi,
    });
    const { user, router } = renderAt(appRoutes, '/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'Secret-1');
    await user.click(screen.getByRole('button', { name: 'Log in' }));

    expect(await screen.findByRole('heading', { name: 'Projects' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
    expect(api.callsTo('POST', '/login')[0]?.data).toEqual({ username: 'ada', password: 'Secret-1' });
    expect(api.callsTo('GET', '/company/7')[0]?.config.headers.Authorization).toBe('Bearer tok-9');
    expect(localStorage.getItem('token')).toBe('tok-9');
    expect(JSON.parse(localStorage.getItem('user') ?? '{}')).toEqual({ ...loginUser, company });
  });

  it('restores the stored session and shows who is signed in', async () => {
    signedIn();
    fakeApi(projectsApi);
    const { user } = renderAt(appRoutes, '/home');
    const avatar = await screen.findByRole('button', { name: 'Account menu for Ada Lovelace' });
    expect(avatar).toHaveTextContent('A');
    await user.click(avatar);
    const menu = screen.getByRole('menu', { name: 'Account' }).parentElement!;
    expect(within(menu).getByText('Ada Lovelace')).toBeInTheDocument();
    expect(within(menu).getByText('Role: CompanyAdmin')).toBeInTheDocument();
    expect(within(menu).getByText('Company: Acme Imaging')).toBeInTheDocument();
    expect(within(menu).getByRole('menuitem', { name: 'Change Password' })).toBeInTheDocument();
  });

  it('does not restore a token without its user', async () => {
    localStorage.setItem('token', 'tok-1');
    renderAt(appRoutes, '/home');
    expect(await screen.findByRole('button', { name: 'Log in' })).toBeInTheDocument();
  });

  it('logs out even when the server cannot be told, and forgets the session', async () => {
    signedIn();
    const api = fakeApi({ ...projectsApi, 'POST /logout': { network: true } });
    const { user, router } = renderAt(appRoutes, '/home');
    await user.click(await screen.findByRole('button', { name: 'Account menu for Ada Lovelace' }));
    await user.click(screen.getByRole('menuitem', { name: 'Logout' }));
    expect(await screen.findByRole('button', { name: 'Log in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(api.callsTo('POST', '/logout')).toHaveLength(1);
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('returns to / when the server answers 401', async () => {
    signedIn();
    fakeApi({ 'GET /study-petitions': { status: 401, data: { message: 'Session expired' } } });
    const { router } = renderAt(appRoutes, '/home');
    expect(await screen.findByRole('button', { name: 'Log in' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('opens the change password dialog from the menu', async () => {
    signedIn();
    fakeApi(projectsApi);
    const { user } = renderAt(appRoutes, '/home');
    await user.click(await screen.findByRole('button', { name: 'Account menu for Ada Lovelace' }));
    await user.click(screen.getByRole('menuitem', { name: 'Change Password' }));
    expect(await screen.findByRole('dialog', { name: 'Change Password' })).toBeInTheDocument();
  });
});

describe('login screen', () => {
  it('shows and hides the password', async () => {
    const { user } = renderAt(appRoutes, '/');
    const password = await screen.findByLabelText('Password');
    expect(password).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(password).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it('asks a user who forgot the password for their username, to tell their administrator', async () => {
    const { user } = renderAt(appRoutes, '/');
    await user.click(await screen.findByRole('button', { name: 'Forgot your password?' }));
    // The dialog loads when first asked for (issue 36).
    const dialog = await screen.findByRole('dialog', { name: 'Forgot your password?' });
    expect(within(dialog).getByText(/Your company administrator is told/)).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Username')).toBeInTheDocument();
  });
});
