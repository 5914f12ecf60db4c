// A SysAdmin's dialog for a company's single sign-on: the secret goes in, never comes out.
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/fake-api';
import { renderWithProviders } from '../../test/render';
import { CompanySsoButton } from './index';

const stored = {
  company_id: 3,
  enabled: true,
  issuer: 'https://login.stmary.example/realms/staff',
  client_id: 'portal',
  has_secret: true,
  password_login_allowed: true,
  auto_create_users: false,
  redirect_uri: 'https://portal.example.org/api/v1/sso/callback',
  login_url: 'https://portal.example.org/api/v1/sso/3/start',
};

describe('CompanySsoButton', () => {
  it('shows the settings without the secret, keeps the stored secret when the field is left empty, and says it saved', async () => {
    const api = fakeApi({
      'GET /admin/companies/3/sso': { status: 200, data: { data: [stored] } },
      'PUT /admin/companies/3/sso': ({ data }) => ({ status: 200, data: { data: [{ ...stored, ...(data as object) }] } }),
    });
    const { user } = renderWithProviders(<CompanySsoButton companyId={3} companyName="St Mary Hospital" />);
    await user.click(await screen.findByRole('button', { name: 'Single sign-on of St Mary Hospital' }));
    expect(await screen.findByRole('dialog', { name: 'Single sign-on for St Mary Hospital' })).toBeVisible();
    expect(await screen.findByLabelText(/^Issuer/)).toHaveValue(stored.issuer);
    expect(screen.getByLabelText('Client secret')).toHaveValue('');
    expect(screen.getByText('A secret is stored. Leave this empty to keep it, or enter a new one to replace it.')).toBeVisible();
    expect(screen.getByLabelText('Redirect URI')).toHaveValue(stored.redirect_uri);

    await user.click(screen.getByLabelText('Users may still sign in with a password'));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Single sign-on settings saved')).toBeVisible();
    expect(api.callsTo('PUT', '/admin/companies/3/sso')[0]?.data).toEqual({
      enabled: true,
      issuer: stored.issuer,
      client_id: 'portal',
      password_login_allowed: false,
      auto_create_users: false,
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('sends a new secret when one is typed, and shows why the server refused the change', async () => {
    const message = 'The portal could not read the OpenID configuration at https://nowhere.example/.well-known/openid-configuration. Check the issuer address and that the portal can reach it.';
    const api = fakeApi({
      'GET /admin/companies/3/sso': { status: 200, data: { data: [{ ...stored, has_secret: false }] } },
      'PUT /admin/companies/3/sso': { status: 422, data: { message } },
    });
    const { user } = renderWithProviders(<CompanySsoButton companyId={3} />);
    await user.click(await screen.findByRole('button', { name: 'Single sign-on' }));
    expect(await screen.findByText('No secret is stored yet.')).toBeVisible();
    await user.type(screen.getByLabelText('Client secret'), 'n3w-secret');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(message)).toBeVisible();
    expect(api.callsTo('PUT', '/admin/companies/3/sso')[0]?.data).toMatchObject({ client_secret: 'n3w-secret' });
    expect(screen.getByRole('dialog')).toBeVisible();
  });
});
