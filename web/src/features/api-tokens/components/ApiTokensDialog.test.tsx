import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderWithProviders } from '../../../test/render';
import { dateInDays } from '../token-words';
import ApiTokensDialog from './ApiTokensDialog';

const project = { id: 3, name: 'Brain MRI cohort', valid: true, status: 'Pendant', company_id: 7, created_at: '2026-03-01T10:00:00Z', updated_at: '2026-03-01T10:00:00Z' };
const token = {
  id: 11,
  name: 'Nightly PACS export',
  scope: 'upload',
  projects: [{ id: 3, name: 'Brain MRI cohort' }],
  created_at: '2026-03-01T10:00:00Z',
  expires_at: '2099-05-30T23:59:59.999Z',
  last_used_at: '2026-03-02T08:00:00Z',
  last_used_ip: '198.51.100.7',
  user: { id: 5, username: 'ada', company_id: 7 },
};
const SECRET = `pup_${'x'.repeat(43)}`;

describe('the API tokens dialog', () => {
  it('lists one’s tokens and revokes one after asking', async () => {
    const api = fakeApi({
      'GET /tokens': { status: 200, data: { data: [token] } },
      'DELETE /tokens/11': { status: 204 },
    });
    const { user } = renderWithProviders(<ApiTokensDialog open onClose={() => undefined} />);
    const table = await screen.findByRole('table', { name: 'API tokens' });
    const row = within(table).getByRole('row', { name: /Nightly PACS export/ });
    expect(within(row).getByText('Read and upload')).toBeInTheDocument();
    expect(within(row).getByText('Brain MRI cohort')).toBeInTheDocument();
    expect(within(row).getByText(/from 198\.51\.100\.7$/)).toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: 'Revoke token Nightly PACS export' }));
    const confirm = await screen.findByRole('dialog', { name: 'Revoke token?' });
    expect(within(confirm).getByText(/Scripts using this token stop working at once/)).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(api.callsTo('DELETE', '/tokens/11')).toHaveLength(1));
    expect(await screen.findByText('Token revoked')).toBeInTheDocument();
  });

  it('makes a token valid 90 days by default and shows its secret once, with a copy button', async () => {
    const api = fakeApi({
      'GET /tokens': { status: 200, data: { data: [] } },
      'GET /study-petitions': { status: 200, data: { data: [project] } },
      'POST /tokens': (call) => ({ status: 201, data: { data: [{ ...token, ...(call.data as object), projects: null, token: SECRET }] } }),
    });
    const { user } = renderWithProviders(<ApiTokensDialog open onClose={() => undefined} />);
    expect(await screen.findByText(/No tokens yet/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New Token' }));
    const form = await screen.findByRole('dialog', { name: 'New API Token' });
    expect(within(form).getByLabelText(/Expires/)).toHaveValue(dateInDays(90));
    await user.type(within(form).getByRole('textbox', { name: /Name/ }), 'Laptop script');
    await user.click(within(form).getByRole('button', { name: 'Create Token' }));

    const shown = await screen.findByRole('dialog', { name: 'Token created' });
    expect(within(shown).getByRole('textbox', { name: 'Token' })).toHaveValue(SECRET);
    expect(within(shown).getByText(/This token is shown only once/)).toBeInTheDocument();
    expect(within(shown).getByRole('button', { name: 'Copy Token' })).toHaveFocus();
    expect(api.callsTo('POST', '/tokens')[0]?.data).toEqual({ name: 'Laptop script', expires_at: dateInDays(90), scope: 'read' });
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Token created' })).not.toBeInTheDocument());
  });

  it('shows the server’s refusal in words and keeps the form', async () => {
    fakeApi({
      'GET /tokens': { status: 200, data: { data: [] } },
      'GET /study-petitions': { status: 200, data: { data: [project] } },
      'POST /tokens': { status: 404, data: { message: 'Project not found' } },
    });
    const { user } = renderWithProviders(<ApiTokensDialog open onClose={() => undefined} />);
    await user.click(await screen.findByRole('button', { name: 'New Token' }));
    const form = await screen.findByRole('dialog', { name: 'New API Token' });
    await user.click(within(form).getByRole('button', { name: 'Create Token' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Enter a name that says what the token is for');
    await user.type(within(form).getByRole('textbox', { name: /Name/ }), 'Script');
    await user.click(within(form).getByRole('button', { name: 'Create Token' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Project not found');
  });
});
