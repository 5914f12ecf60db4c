import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderAt } from '../../../test/render';
import { appRoutes } from '../../../app/router';

const ANSWER = 'If the account exists, your administrator has been notified';

describe("'Forgot your password?'", () => {
  it('asks for the username (the one typed in the form first) and gives the same answer for any', async () => {
    const api = fakeApi({ 'POST /password/forgot': { status: 200, data: { data: { message: ANSWER } } } });
    const { user } = renderAt(appRoutes, '/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.click(screen.getByRole('button', { name: 'Forgot your password?' }));
    // The dialog loads when first asked for (issue 36).
    const dialog = await screen.findByRole('dialog', { name: 'Forgot your password?' });
    expect(within(dialog).getByLabelText('Username')).toHaveValue('ada');
    await user.click(within(dialog).getByRole('button', { name: 'Send Request' }));
    expect(await within(dialog).findByText(ANSWER)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'OK' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Forgot your password?' }));
    const again = await screen.findByRole('dialog', { name: 'Forgot your password?' });
    // A fresh start: no answer left from the last time.
    expect(within(again).queryByText(ANSWER)).not.toBeInTheDocument();
    await user.clear(within(again).getByLabelText('Username'));
    expect(within(again).getByRole('button', { name: 'Send Request' })).toBeDisabled();
    await user.type(within(again).getByLabelText('Username'), 'nobody');
    await user.click(within(again).getByRole('button', { name: 'Send Request' }));
    expect(await within(again).findByText(ANSWER)).toBeInTheDocument();
    expect(api.callsTo('POST', '/password/forgot').map((c) => c.data)).toEqual([{ username: 'ada' }, { username: 'nobody' }]);
  });

  it('says so when the request could not reach the server', async () => {
    fakeApi({ 'POST /password/forgot': { network: true } });
    const { user } = renderAt(appRoutes, '/');
    await user.click(await screen.findByRole('button', { name: 'Forgot your password?' }));
    const dialog = await screen.findByRole('dialog', { name: 'Forgot your password?' });
    await user.type(within(dialog).getByLabelText('Username'), 'ada');
    await user.click(within(dialog).getByRole('button', { name: 'Send Request' }));
    expect(await within(dialog).findByText('Connection Error: Could not connect to server. Please check your internet connection.')).toBeInTheDocument();
    expect(within(dialog).queryByText(ANSWER)).not.toBeInTheDocument();
  });
});
