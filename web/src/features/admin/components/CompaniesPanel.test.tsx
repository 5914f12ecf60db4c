import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { aCompany, page, renderAdmin, sysAdmin } from '../testing/admin-fixtures';
import { parseQuotaGb, QUOTA_INVALID } from './CompanyQuotaDialog';

const GB = 1024 ** 3;

describe('storage allowances on the companies screen', () => {
  it('shows each company’s usage as a bar, and no bar where there is no limit', async () => {
    fakeApi({
      'GET /admin/companies': { status: 200, data: page([aCompany({ quota_bytes: 10 * GB, used_bytes: 8.5 * GB }), aCompany({ id: 8, companyname: 'Northside', used_bytes: 1024 })]) },
      'GET /admin/password-requests': { status: 200, data: page([]) },
    });
    renderAdmin(sysAdmin, '/admin/companies');
    const table = await screen.findByRole('table', { name: 'Companies' });
    expect(within(table).getByRole('columnheader', { name: 'Storage' })).toBeInTheDocument();
    const acme = within(table).getByRole('row', { name: /Acme Imaging/ });
    expect(within(acme).getByRole('progressbar', { name: 'Storage used' })).toHaveAttribute('aria-valuenow', '85');
    expect(within(acme).getByText('8.50 GB of 10.00 GB used (85%)')).toBeInTheDocument();
    const northside = within(table).getByRole('row', { name: /Northside/ });
    expect(within(northside).getByText('1.00 KB used (no limit)')).toBeInTheDocument();
    expect(within(northside).queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('sets an allowance in GB, clears it when left empty, and refuses what is not a number', async () => {
    const api = fakeApi({
      'GET /admin/companies': { status: 200, data: page([aCompany({ quota_bytes: 10 * GB, used_bytes: GB })]) },
      'PUT /admin/companies/7': { status: 200, data: { data: [aCompany({ quota_bytes: 2.5 * GB, used_bytes: GB })] } },
      'GET /admin/password-requests': { status: 200, data: page([]) },
    });
    const { user } = renderAdmin(sysAdmin, '/admin/companies');
    await user.click(await screen.findByRole('button', { name: 'Storage allowance of Acme Imaging' }));
    let dialog = screen.getByRole('dialog', { name: 'Storage Allowance of Acme Imaging' });
    expect(within(dialog).getByText('Now: 1.00 GB of 10.00 GB used. Deleted files do not count.')).toBeInTheDocument();
    const field = within(dialog).getByLabelText('Allowance (GB)');
    expect(field).toHaveValue('10');
    await user.clear(field);
    await user.type(field, 'lots');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText(QUOTA_INVALID)).toBeInTheDocument();
    expect(api.callsTo('PUT', '/admin/companies/7')).toEqual([]);
    await user.clear(field);
    await user.type(field, '2.5');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Storage allowance saved')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/admin/companies/7')[0]?.data).toEqual({ quota_bytes: 2.5 * GB });

    await user.click(screen.getByRole('button', { name: 'Storage allowance of Acme Imaging' }));
    dialog = screen.getByRole('dialog', { name: 'Storage Allowance of Acme Imaging' });
    await user.clear(within(dialog).getByLabelText('Allowance (GB)'));
    expect(within(dialog).getByText('Leave empty for no limit')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await screen.findAllByText('Storage allowance saved');
    expect(api.callsTo('PUT', '/admin/companies/7')[1]?.data).toEqual({ quota_bytes: null });
  });

  it('reads an allowance typed in GB', () => {
    expect(parseQuotaGb('')).toBeNull();
    expect(parseQuotaGb(' 50 ')).toBe(50 * GB);
    expect(parseQuotaGb('0.5')).toBe(GB / 2);
    expect(parseQuotaGb('-1')).toBeUndefined();
    expect(parseQuotaGb('1e3')).toBeUndefined();
  });
});
