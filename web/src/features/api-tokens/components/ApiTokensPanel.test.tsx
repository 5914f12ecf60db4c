import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderWithProviders } from '../../../test/render';
import { ApiTokensPanel } from './ApiTokensPanel';

const token = {
  id: 12,
  name: 'Old export',
  scope: 'read',
  projects: null,
  created_at: '2026-01-01T10:00:00Z',
  expires_at: '2026-02-01T23:59:59.999Z',
  last_used_at: null,
  last_used_ip: null,
  user: { id: 5, username: 'ada', company_id: 7 },
};

describe('the administration’s API tokens tab', () => {
  it('lists everyone’s tokens for a SysAdmin with their owner and company, and an expired one as expired', async () => {
    const api = fakeApi({ 'GET /tokens': { status: 200, data: { data: [token] } } });
    renderWithProviders(<ApiTokensPanel sysAdmin companyName={(id) => (id === 7 ? 'Acme Imaging' : '?')} />);
    const row = within(await screen.findByRole('table', { name: 'API tokens' })).getByRole('row', { name: /Old export/ });
    expect(within(row).getByText('ada (Acme Imaging)')).toBeInTheDocument();
    expect(within(row).getByText('All projects')).toBeInTheDocument();
    expect(within(row).getByText('Never')).toBeInTheDocument();
    expect(within(row).getByText(/^Expired /)).toBeInTheDocument();
    expect(api.callsTo('GET', '/tokens')[0]?.params).toEqual({ owner: 'all' });
  });
});
