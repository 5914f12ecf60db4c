import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, type FakeCall } from '../../../test/fake-api';
import { viewportWidth } from '../../../test/viewport';
import { aCompany, anAdminUser, companyAdmin, page, renderAdmin, sysAdmin } from '../testing/admin-fixtures';

const ada = anAdminUser({ id: 3, username: 'ada', firstname: 'Ada', lastname: 'Lovelace', role: 2 });
const uma = anAdminUser();
const sysUser = anAdminUser({ id: 9, username: 'sol', firstname: 'Sol', lastname: 'Staff', role: 3 });
const noRequests = { 'GET /admin/password-requests': { status: 200, data: page([]) } };
const LINK = { reset_url: 'http://portal.test/set-password#token=secret-token-value-123456', expires_at: '2026-03-02T10:00:00Z' };

function rowOf(username: string) {
  return within(screen.getByRole('table', { name: 'Users' }))
    .getAllByRole('row')
    .find((row) => within(row).queryByText(username, { exact: true }))!;
}

describe('Users, as a CompanyAdmin', () => {
  it('lists their company’s users; Sys accounts and their own account cannot be changed from here', async () => {
    fakeApi({ 'GET /admin/users': { status: 200, data: page([ada, uma, sysUser]) }, ...noRequests });
    renderAdmin(companyAdmin, '/admin/users');
    expect(await screen.findByText('(3 users)')).toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: 'Company' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Company' })).not.toBeInTheDocument();
    expect(within(rowOf('sol')).getByText('Managed by a SysAdmin')).toBeInTheDocument();
    expect(within(rowOf('sol')).queryByRole('button')).not.toBeInTheDocument();
    expect(within(rowOf('ada')).getByRole('button', { name: 'Disable user ada' })).toBeDisabled();
    expect(within(rowOf('uma')).getByRole('button', { name: 'Disable user uma' })).toBeEnabled();
    expect(within(rowOf('uma')).getByText('Active')).toBeInTheDocument();
  });

  it('searches by what is typed once typing pauses, from the first page', async () => {
    const api = fakeApi({ 'GET /admin/users': { status: 200, data: page([uma]) }, ...noRequests });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    await screen.findByText('(1 user)');
    await user.type(screen.getByRole('searchbox', { name: 'Search users' }), 'upl');
    await waitFor(() => expect(api.callsTo('GET', '/admin/users').at(-1)?.params).toEqual({ q: 'upl', page: 1, per_page: 5 }));
    expect(api.callsTo('GET', '/admin/users').map((c) => (c.params as { q?: string }).q)).toEqual([undefined, 'upl']);
  });

  it('creates a user with the roles a CompanyAdmin may give, then shows their password link once', async () => {
    const created = anAdminUser({ id: 12, username: 'new.user', firstname: 'New', lastname: 'Person' });
    const api = fakeApi({
      'GET /admin/users': { status: 200, data: page([uma]) },
      'POST /admin/users': { status: 201, data: { data: [created] } },
      'POST /admin/users/12/reset-password': { status: 200, data: { data: [LINK] } },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    await user.click(await screen.findByRole('button', { name: 'Add User' }));
    const dialog = screen.getByRole('dialog', { name: 'Add User' });
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('The username is required')).toBeInTheDocument();
    expect(within(dialog).getByText('The first name is required')).toBeInTheDocument();
    expect(api.callsTo('POST', '/admin/users')).toHaveLength(0);

    await user.type(within(dialog).getByLabelText('Username'), 'new.user');
    await user.type(within(dialog).getByLabelText('First Name'), 'New');
    await user.type(within(dialog).getByLabelText('Last Name'), 'Person');
    await user.click(within(dialog).getByRole('combobox', { name: 'Role' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['User', 'CompanyAdmin']);
    await user.click(screen.getByRole('option', { name: 'User' }));
    expect(within(dialog).queryByRole('combobox', { name: 'Company' })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    const prompt = await screen.findByRole('dialog', { name: 'Make a password link?' });
    expect(api.callsTo('POST', '/admin/users')[0]?.data).toEqual({ username: 'new.user', firstname: 'New', lastname: 'Person', role: 1, email: null });
    expect(await screen.findByText('User created')).toBeInTheDocument();
    await user.click(within(prompt).getByRole('button', { name: 'Make Link' }));
    const shown = await screen.findByRole('dialog', { name: 'Password link for New Person' });
    expect(within(shown).getByLabelText('Password link')).toHaveValue(LINK.reset_url);
    expect(within(shown).getByText(/This link is shown only once/)).toBeInTheDocument();
    expect(within(shown).getByText(`Expires: ${new Date(LINK.expires_at).toLocaleString()}`)).toBeInTheDocument();
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByDisplayValue(LINK.reset_url)).not.toBeInTheDocument();
  });

  it('copies the link with the Copy Link button', async () => {
    fakeApi({
      'GET /admin/users': { status: 200, data: page([uma]) },
      'POST /admin/users/5/reset-password': { status: 200, data: { data: [LINK] } },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    await user.click(await screen.findByRole('button', { name: 'Reset password of uma' }));
    const confirm = screen.getByRole('dialog', { name: 'Reset password?' });
    expect(confirm).toHaveTextContent('A link made earlier stops working');
    await user.click(within(confirm).getByRole('button', { name: 'Make Link' }));
    const copy = await screen.findByRole('button', { name: 'Copy Link' });
    // The button pressed is gone: focus is on the next step, so the keyboard (and Esc) still work.
    expect(copy).toHaveFocus();
    await user.click(copy);
    expect(await screen.findByText('Copied to the clipboard.')).toBeInTheDocument();
    // user-event stands in for the browser's clipboard.
    expect(await navigator.clipboard.readText()).toBe(LINK.reset_url);
  });

  it("says the server's reason when it refuses a new user, and keeps what was typed", async () => {
    fakeApi({
      'GET /admin/users': { status: 200, data: page([uma]) },
      'POST /admin/users': { status: 409, data: { message: 'The username uma is taken' } },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    await user.click(await screen.findByRole('button', { name: 'Add User' }));
    const dialog = screen.getByRole('dialog', { name: 'Add User' });
    await user.type(within(dialog).getByLabelText('Username'), 'uma');
    await user.type(within(dialog).getByLabelText('First Name'), 'Uma');
    await user.type(within(dialog).getByLabelText('Last Name'), 'Other');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Conflict: The username uma is taken')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Username')).toHaveValue('uma');
  });

  it('disables a user after asking', async () => {
    const puts: FakeCall[] = [];
    fakeApi({
      'GET /admin/users': { status: 200, data: page([uma]) },
      'PUT /admin/users/5': (call) => {
        puts.push(call);
        return { status: 200, data: { data: [anAdminUser({ disabled: (call.data as { disabled: boolean }).disabled })] } };
      },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    await user.click(await screen.findByRole('button', { name: 'Disable user uma' }));
    const confirm = screen.getByRole('dialog', { name: 'Disable user?' });
    expect(confirm).toHaveTextContent('Uma Upload (uma)');
    await user.click(within(confirm).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('uma is disabled and signed out everywhere')).toBeInTheDocument();
    expect(puts.map((c) => c.data)).toEqual([{ disabled: true }]);
  });

  it('resets a user’s two-factor sign-in after asking, and says the server’s reason when there is none', async () => {
    let resets = 0;
    fakeApi({
      'GET /admin/users': { status: 200, data: page([uma]) },
      'DELETE /admin/users/5/two-factor': () =>
        (resets += 1) === 1 ? { status: 204 } : { status: 422, data: { message: 'uma has not set up two-factor sign-in: there is nothing to reset.' } },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    for (const said of ['uma signs in with their password alone until they set up two-factor sign-in again', 'uma has not set up two-factor sign-in: there is nothing to reset.']) {
      await user.click(await screen.findByRole('button', { name: 'Reset two-factor sign-in of uma' }));
      const confirm = screen.getByRole('dialog', { name: 'Reset two-factor sign-in?' });
      expect(confirm).toHaveTextContent('Uma Upload (uma)');
      await user.click(within(confirm).getByRole('button', { name: 'Reset' }));
      expect(await screen.findByText(said)).toBeInTheDocument();
    }
    expect(resets).toBe(2);
  });

  it('requires two-factor sign-in of the company’s users with one switch', async () => {
    const puts: FakeCall[] = [];
    fakeApi({
      'GET /admin/users': { status: 200, data: page([uma]) },
      'GET /admin/companies/7/two-factor': { status: 200, data: { data: [{ company_id: 7, required: false }] } },
      'PUT /admin/companies/7/two-factor': (call) => {
        puts.push(call);
        return { status: 200, data: { data: [{ company_id: 7, required: true }] } };
      },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    const toggle = await screen.findByRole('switch', { name: 'Require two-factor sign-in' });
    expect(toggle).not.toBeChecked();
    await user.click(toggle);
    expect(await screen.findByText('Two-factor sign-in is now required of this company’s users')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Require two-factor sign-in' })).toBeChecked();
    expect(puts.map((c) => c.data)).toEqual([{ required: true }]);
  });

  it('enables a disabled user without asking; their reset is off until then', async () => {
    const api = fakeApi({
      'GET /admin/users': { status: 200, data: page([anAdminUser({ disabled: true })]) },
      'PUT /admin/users/5': { status: 200, data: { data: [uma] } },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    expect(await screen.findByRole('button', { name: 'Reset password of uma' })).toBeDisabled();
    expect(within(rowOf('uma')).getByText('Disabled')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Enable user uma' }));
    expect(await screen.findByText('uma is enabled')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(api.callsTo('PUT', '/admin/users/5')[0]?.data).toEqual({ disabled: false });
  });

  it('edits names and role; one’s own role is not offered for change', async () => {
    const api = fakeApi({
      'GET /admin/users': { status: 200, data: page([ada, uma]) },
      'PUT /admin/users/3': { status: 200, data: { data: [ada] } },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    await user.click(await screen.findByRole('button', { name: 'Edit user ada' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit User ada' });
    expect(within(dialog).queryByLabelText('Username')).not.toBeInTheDocument();
    expect(within(dialog).getByText('You cannot change your own role')).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText('Last Name'));
    await user.type(within(dialog).getByLabelText('Last Name'), 'King');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.callsTo('PUT', '/admin/users/3')[0]?.data).toEqual({ firstname: 'Ada', lastname: 'King', email: null }));
  });

  it('shows users as cards on a phone', async () => {
    viewportWidth(390);
    fakeApi({ 'GET /admin/users': { status: 200, data: page([uma]) }, ...noRequests });
    renderAdmin(companyAdmin, '/admin/users');
    const card = await screen.findByRole('listitem', { name: 'uma' });
    expect(card).toHaveTextContent('Uma Upload');
    expect(within(card).getByRole('button', { name: 'Reset password of uma' })).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});

describe('Users, as a SysAdmin', () => {
  it('filters by company through the address, and a new user belongs to the chosen company', async () => {
    const api = fakeApi({
      'GET /admin/users': { status: 200, data: page([uma]) },
      'GET /admin/companies': { status: 200, data: page([aCompany({ id: 1, companyname: 'Portal Operations' }), aCompany()]) },
      'POST /admin/users': { status: 201, data: { data: [anAdminUser({ id: 13 })] } },
      ...noRequests,
    });
    const { user } = renderAdmin(sysAdmin, '/admin/users?company_id=7');
    expect(await screen.findByRole('cell', { name: 'Acme Imaging' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/admin/users')[0]?.params).toEqual({ page: 1, per_page: 5, company_id: 7 });

    await user.click(screen.getByRole('button', { name: 'Add User' }));
    const dialog = screen.getByRole('dialog', { name: 'Add User' });
    await user.click(within(dialog).getByRole('combobox', { name: 'Role' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['User', 'CompanyAdmin', 'SysUser', 'SysAdmin']);
    await user.click(screen.getByRole('option', { name: 'User' }));
    expect(within(dialog).getByRole('combobox', { name: 'Company' })).toHaveTextContent('Acme Imaging');
    await user.type(within(dialog).getByLabelText('Username'), 'vic');
    await user.type(within(dialog).getByLabelText('First Name'), 'Vic');
    await user.type(within(dialog).getByLabelText('Last Name'), 'Tor');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.callsTo('POST', '/admin/users')[0]?.data).toMatchObject({ username: 'vic', company_id: 7 }));

    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('combobox', { name: 'Company' }));
    await user.click(screen.getByRole('option', { name: 'All companies' }));
    await waitFor(() => expect(api.callsTo('GET', '/admin/users').at(-1)?.params).toEqual({ page: 1, per_page: 5 }));
  });
});
