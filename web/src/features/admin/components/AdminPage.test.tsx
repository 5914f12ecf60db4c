import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { aCompany, anAdminUser, companyAdmin, page, renderAdmin, sysAdmin } from '../testing/admin-fixtures';

const request = { id: 4, user_id: 5, username: 'uma', firstname: 'Uma', lastname: 'Upload', company_id: 7, created_at: '2026-03-01T10:00:00Z', resolved_at: null };
const tabNames = () => screen.getAllByRole('tab').map((tab) => tab.textContent);

describe('the administration page', () => {
  it('opens on Users; a CompanyAdmin has no Companies tab and is refused its address', async () => {
    fakeApi({ 'GET /admin/users': { status: 200, data: page([anAdminUser()]) }, 'GET /admin/password-requests': { status: 200, data: page([]) } });
    const { router } = renderAdmin(companyAdmin, '/admin');
    expect(await screen.findByRole('heading', { name: 'Administration' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/users');
    expect(screen.getByText('The users of Acme Imaging and their audit trail')).toBeInTheDocument();
    expect(tabNames()).toEqual(['Users', 'Password requests', 'Webhooks', 'API tokens', 'Audit']);

    await router.navigate('/admin/companies');
    expect(await screen.findByText('Access Denied: You do not have permission to perform this action')).toBeInTheDocument();
    expect(screen.queryByRole('tab')).not.toBeInTheDocument();
  });

  it('counts the requests waiting on their tab, and lists them with the reset action', async () => {
    const api = fakeApi({
      'GET /admin/users': { status: 200, data: page([]) },
      'GET /admin/password-requests': { status: 200, data: page([request]) },
      'POST /admin/users/5/reset-password': { status: 200, data: { data: [{ reset_url: 'http://x/set-password#token=t', expires_at: '2026-03-02T10:00:00Z' }] } },
    });
    const { user } = renderAdmin(companyAdmin, '/admin/users');
    const tab = await screen.findByRole('tab', { name: 'Password requests (1 waiting)' });
    await user.click(tab);
    const table = await screen.findByRole('table', { name: 'Password requests' });
    expect(within(table).getByText('Waiting')).toBeInTheDocument();
    expect(api.callsTo('GET', '/admin/password-requests').at(-1)?.params).toMatchObject({ status: 'open' });
    await user.click(within(table).getByRole('button', { name: 'Reset Password for uma' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Reset password?' })).getByRole('button', { name: 'Make Link' }));
    expect(await screen.findByRole('dialog', { name: 'Password link for Uma Upload' })).toBeInTheDocument();

    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('combobox', { name: 'Show' }));
    await user.click(screen.getByRole('option', { name: 'All' }));
    await waitFor(() => expect(api.callsTo('GET', '/admin/password-requests').at(-1)?.params).toMatchObject({ status: 'all', page: 1 }));
  });
});

describe('Companies (SysAdmin)', () => {
  it('lists, creates and renames companies; a name is required', async () => {
    const acme = aCompany();
    const api = fakeApi({
      'GET /admin/companies': { status: 200, data: page([acme]) },
      'POST /admin/companies': { status: 201, data: { data: [aCompany({ id: 8, companyname: 'Northside' })] } },
      'PUT /admin/companies/7': { status: 200, data: { data: [aCompany({ companyname: 'Acme Imaging Ltd' })] } },
      'GET /admin/password-requests': { status: 200, data: page([]) },
    });
    const { user } = renderAdmin(sysAdmin, '/admin/companies');
    expect(tabNames()).toEqual(['Users', 'Companies', 'Password requests', 'Webhooks', 'API tokens', 'Audit']);
    expect(await screen.findByRole('cell', { name: 'Acme Imaging' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Users of Acme Imaging' })).toHaveAttribute('href', '/admin/users?company_id=7');

    await user.click(screen.getByRole('button', { name: 'Add Company' }));
    const dialog = screen.getByRole('dialog', { name: 'Add Company' });
    await user.type(within(dialog).getByLabelText('Company Name'), '   ');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('The company name is required')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Company Name'), 'Northside ');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Company created')).toBeInTheDocument();
    expect(api.callsTo('POST', '/admin/companies')[0]?.data).toEqual({ companyname: 'Northside' });

    await user.click(screen.getByRole('button', { name: 'Rename company Acme Imaging' }));
    const rename = screen.getByRole('dialog', { name: 'Rename Company' });
    expect(within(rename).getByLabelText('Company Name')).toHaveValue('Acme Imaging');
    await user.type(within(rename).getByLabelText('Company Name'), ' Ltd');
    await user.click(within(rename).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Company renamed')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/admin/companies/7')[0]?.data).toEqual({ companyname: 'Acme Imaging Ltd' });
  });

  it('shows a failed list with its reason and Retry, not an empty list', async () => {
    fakeApi({ 'GET /admin/companies': { status: 503 }, 'GET /admin/password-requests': { status: 200, data: page([]) } });
    renderAdmin(sysAdmin, '/admin/companies');
    expect(await screen.findByText('Service Unavailable: The service is temporarily offline', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(screen.queryByText('No companies yet.')).not.toBeInTheDocument();
  });
});
