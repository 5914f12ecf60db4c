import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderWithProviders } from '../../../test/render';
import ChangePasswordDialog from './ChangePasswordDialog';

function renderDialog(changePassword?: () => Promise<void>) {
  const onClose = vi.fn();
  const props = changePassword ? { changePassword } : {};
  const view = renderWithProviders(<ChangePasswordDialog open userId={3} onClose={onClose} {...props} />);
  const field = (name: string) => screen.getByLabelText(name);
  const fill = async (current: string, next: string, confirm: string) => {
    if (current) await view.user.type(field('Current Password'), current);
    if (next) await view.user.type(field('New Password'), next);
    if (confirm) await view.user.type(field('Confirm New Password'), confirm);
  };
  return { ...view, onClose, field, fill };
}

const submitButton = () => screen.getByRole('button', { name: 'Change Password' });
const rule = (label: string) => within(screen.getByRole('list', { name: 'Password requirements' })).getByText(label).closest('li');

describe('ChangePasswordDialog', () => {
  it('ticks each rule of the checklist as the new password is typed', async () => {
    const { user, field } = renderDialog();
    expect(rule('Minimum 8 characters')).toHaveTextContent('not met');
    await user.type(field('New Password'), 'abcdefgh');
    expect(rule('Minimum 8 characters')).not.toHaveTextContent('not met');
    expect(rule('One lowercase letter')).not.toHaveTextContent('not met');
    expect(rule('One uppercase letter')).toHaveTextContent('not met');
    expect(rule('One number')).toHaveTextContent('not met');
    expect(rule('One special character (!@#$%^&*)')).toHaveTextContent('not met');
    await user.type(field('New Password'), 'A1!');
    for (const label of ['One uppercase letter', 'One number', 'One special character (!@#$%^&*)']) {
      expect(rule(label)).not.toHaveTextContent('not met');
    }
  });

  it('keeps submit disabled until the new password is valid and confirmed', async () => {
    const { fill } = renderDialog();
    expect(submitButton()).toBeDisabled();
    await fill('Old-pass1', 'New-pass1', 'New-pass');
    expect(submitButton()).toBeDisabled();
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
  });

  it('explains on Enter, in order, why the change cannot be sent', async () => {
    const { user, field, fill } = renderDialog();
    await user.type(field('Current Password'), '{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent('All fields are required');

    await fill('Old-pass1', 'weak', 'weak');
    await user.type(field('Confirm New Password'), '{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent('Password does not meet all requirements');

    await user.clear(field('New Password'));
    await user.type(field('New Password'), 'New-pass1');
    await user.type(field('Confirm New Password'), '{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent('Passwords do not match');

    await user.clear(field('New Password'));
    await user.clear(field('Confirm New Password'));
    await fill('', 'Old-pass1', 'Old-pass1');
    await user.click(submitButton());
    expect(screen.getByRole('alert')).toHaveTextContent('New password must be different from the current one');
  });

  it('lets the message follow the fields: it changes as they are fixed and goes once all is well', async () => {
    const { user, field, fill } = renderDialog();
    await fill('Old-pass1', 'weak', 'weak');
    await user.type(field('Confirm New Password'), '{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent('Password does not meet all requirements');

    // Every rule turns green: the requirement message goes, the next check in order speaks.
    await user.type(field('New Password'), 'Pass1!');
    expect(rule('One special character (!@#$%^&*)')).not.toHaveTextContent('not met');
    expect(screen.getByRole('alert')).toHaveTextContent('Passwords do not match');
    expect(screen.queryByText('Password does not meet all requirements')).not.toBeInTheDocument();

    await user.type(field('Confirm New Password'), 'Pass1!');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(submitButton()).toBeEnabled();

    // Breaking a rule again brings its message back.
    await user.type(field('New Password'), '{Backspace}');
    expect(screen.getByRole('alert')).toHaveTextContent('Password does not meet all requirements');
  });

  it('keeps a refusal from the server until the next attempt, and no check message before any attempt', async () => {
    fakeApi({ 'POST /password_reset': { status: 422, data: { message: 'Current password is incorrect' } } });
    const { user, field, fill } = renderDialog();
    await fill('Wrong-pass1', 'New', '');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await user.type(field('New Password'), '-pass1!');
    await user.type(field('Confirm New Password'), 'New-pass1!');
    await user.click(submitButton());
    expect(await screen.findByRole('alert')).toHaveTextContent('Current password is incorrect');
    await user.type(field('Current Password'), 'x');
    expect(screen.getByRole('alert')).toHaveTextContent('Current password is incorrect');
  });

  it('sends the change, shows the success banner, clears the fields and closes', async () => {
    const api = fakeApi({ 'POST /password_reset': { status: 200, data: { data: { message: 'ok' } } } });
    const { user, fill, field, onClose } = renderDialog();
    await fill('Old-pass1', 'New-pass1!', 'New-pass1!');
    await user.click(submitButton());
    expect(await screen.findByText('Password changed successfully')).toBeInTheDocument();
    expect(api.callsTo('POST', '/password_reset')[0]?.data).toEqual({ userid: 3, old_password: 'Old-pass1', new_password: 'New-pass1!' });
    expect(field('Current Password')).toHaveValue('');
    expect(field('New Password')).toHaveValue('');
    await waitFor(() => expect(onClose).toHaveBeenCalled(), { timeout: 3000 });
  });

  it('shows its busy status in the dialog, disables the fields and cannot be closed while submitting', async () => {
    let finish: () => void = () => undefined;
    const { user, fill, field, onClose } = renderDialog(() => new Promise<void>((resolve) => (finish = resolve)));
    await fill('Old-pass1', 'New-pass1!', 'New-pass1!');
    await user.click(submitButton());
    // The status sits in the dialog itself, not in an overlay stacked over it.
    const status = await within(screen.getByRole('dialog', { name: 'Change Password' })).findByRole('status');
    expect(status).toHaveTextContent('Changing password...');
    expect(status).toHaveTextContent('Please wait while we process your request');
    expect(screen.getAllByRole('status', { hidden: true })).toHaveLength(1);
    expect(field('New Password')).toBeDisabled();
    await user.keyboard('{Escape}');
    expect(onClose).not.toHaveBeenCalled();
    finish();
    expect(await screen.findByText('Password changed successfully')).toBeInTheDocument();
  });

  it("shows the server's message on failure and stays open", async () => {
    fakeApi({ 'POST /password_reset': { status: 422, data: { message: 'Current password is incorrect' } } });
    const { user, fill, onClose } = renderDialog();
    await fill('Wrong-pass1', 'New-pass1!', 'New-pass1!');
    await user.click(submitButton());
    expect(await screen.findByRole('alert')).toHaveTextContent('Current password is incorrect');
    expect(onClose).not.toHaveBeenCalled();
  });

  it('says how long to wait when the current password was guessed too often', async () => {
    const message = 'Too many failed login attempts. Try again in 15 minutes.';
    fakeApi({ 'POST /password_reset': { status: 429, data: { message } } });
    const { user, fill, onClose } = renderDialog();
    await fill('Wrong-pass1', 'New-pass1!', 'New-pass1!');
    await user.click(submitButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(onClose).not.toHaveBeenCalled();
  });

  it("falls back to 'Error changing password'", async () => {
    fakeApi({ 'POST /password_reset': { network: true } });
    const { user, fill } = renderDialog();
    await fill('Old-pass1', 'New-pass1!', 'New-pass1!');
    await user.click(submitButton());
    expect(await screen.findByRole('alert')).toHaveTextContent('Error changing password');
  });

  it('cancel clears fields and errors', async () => {
    const { user, field, onClose } = renderDialog();
    await user.type(field('Current Password'), 'abc{Enter}');
    expect(screen.getByRole('alert')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalled();
    expect(field('Current Password')).toHaveValue('');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
