import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderAt } from '../../../test/render';
import { appRoutes } from '../../../app/router';
import { NO_TOKEN_MESSAGE, PASSWORD_SET_TOAST, tokenFromHash } from './SetPasswordPage';

const USED = 'This password link is not valid: it was already used, has expired, or was replaced by a newer one. Ask your administrator for a new link.';
const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';

describe('/set-password', () => {
  it('reads the secret from the fragment and drops it from the address', async () => {
    fakeApi({ 'POST /password/link': { status: 422, data: { message: USED } } });
    const { router } = renderAt(appRoutes, `/set-password#token=${TOKEN}`);
    expect(await screen.findByRole('heading', { name: 'Set your password' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.hash).toBe(''));
    expect(router.state.location.pathname).toBe('/set-password');
    expect(tokenFromHash(`#token=${TOKEN}`)).toBe(TOKEN);
  });

  it('checks the spec §5 rules as the change-password dialog does, then sets the password and goes to the login screen', async () => {
    const api = fakeApi({
      'POST /password/link': { status: 200, data: { data: { username: 'ada', firstname: 'Ada', expires_at: '2026-03-02T10:00:00Z' } } },
      'POST /password/set': { status: 200, data: { data: { message: 'Password changed successfully' } } },
    });
    const { user, router } = renderAt(appRoutes, `/set-password#token=${TOKEN}`);
    // The page names the account as soon as the link is checked; the secret goes in the body, never the address.
    expect(await screen.findByRole('heading', { name: 'Set a password for ada' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/password/link')[0]?.data).toEqual({ token: TOKEN });
    expect(api.callsTo('POST', '/password/link')[0]?.params).toBeUndefined();
    const next = await screen.findByLabelText('New Password');
    const confirm = screen.getByLabelText('Confirm New Password');
    const submit = screen.getByRole('button', { name: 'Set Password' });
    await user.type(next, 'weakpass');
    await user.type(confirm, 'weakpass{Enter}');
    expect(await screen.findByText('Password does not meet all requirements')).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Password requirements' })).toBeInTheDocument();
    expect(submit).toBeDisabled();
    await user.clear(next);
    await user.type(next, 'N3w!Secret-pw');
    expect(await screen.findByText('Passwords do not match', { selector: '.MuiAlert-message' })).toBeInTheDocument();
    await user.clear(confirm);
    await user.type(confirm, 'N3w!Secret-pw');
    await user.click(submit);
    expect(await screen.findByText(PASSWORD_SET_TOAST)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(api.callsTo('POST', '/password/set')[0]?.data).toEqual({ token: TOKEN, new_password: 'N3w!Secret-pw' });
    expect(api.callsTo('POST', '/password/set')[0]?.config.headers.Authorization).toBeUndefined();
  });

  it('says that a used or expired link does not work as soon as the page opens, before a password is typed', async () => {
    const api = fakeApi({ 'POST /password/link': { status: 422, data: { message: USED } } });
    renderAt(appRoutes, `/set-password#token=${TOKEN}`);
    expect(await screen.findByText(USED)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Set your password' })).toBeInTheDocument();
    expect(screen.getByLabelText('New Password')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Set Password' })).toBeDisabled();
    expect(api.callsTo('POST', '/password/set')).toHaveLength(0);
  });

  it('says in words that a link used meanwhile does not work, and stays', async () => {
    fakeApi({
      'POST /password/link': { status: 200, data: { data: { username: 'ada', firstname: 'Ada', expires_at: '2026-03-02T10:00:00Z' } } },
      'POST /password/set': { status: 422, data: { message: USED } },
    });
    const { user, router } = renderAt(appRoutes, `/set-password#token=${TOKEN}`);
    await user.type(await screen.findByLabelText('New Password'), 'N3w!Secret-pw');
    await user.type(screen.getByLabelText('Confirm New Password'), 'N3w!Secret-pw');
    await user.click(screen.getByRole('button', { name: 'Set Password' }));
    expect(await screen.findByText(USED)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/set-password');
  });

  it('without a secret it says what to do and sends nothing', async () => {
    const api = fakeApi({});
    renderAt(appRoutes, '/set-password');
    expect(await screen.findByText(NO_TOKEN_MESSAGE)).toBeInTheDocument();
    expect(screen.getByLabelText('New Password')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Set Password' })).toBeDisabled();
    expect(api.calls).toHaveLength(0);
  });
});
