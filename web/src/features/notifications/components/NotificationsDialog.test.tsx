import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderWithProviders } from '../../../test/render';
import NotificationsDialog from './NotificationsDialog';

const saved = { events: ['upload.processed'], mode: 'immediate', all_projects: false, email: 'ada@example.org', mail_configured: true };

describe('the notifications dialog', () => {
  it('shows the saved choice and saves a new one', async () => {
    const api = fakeApi({
      'GET /me/notifications': { status: 200, data: { data: [saved] } },
      'PUT /me/notifications': (call) => ({ status: 200, data: { data: [{ ...saved, ...(call.data as object) }] } }),
    });
    const onClose = vi.fn();
    const { user } = renderWithProviders(<NotificationsDialog open role={1} onClose={onClose} />);
    const dialog = await screen.findByRole('dialog', { name: 'Notifications' });
    expect(await within(dialog).findByText('E-mail me at ada@example.org when an upload or a delivery of my projects is:')).toBeInTheDocument();
    expect(within(dialog).getByRole('checkbox', { name: 'Uploads: Processed (or failed)' })).toBeChecked();
    // Only the receiving roles may follow every company.
    expect(within(dialog).queryByRole('switch', { name: /Every company/ })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Deliveries: Rejected' }));
    await user.click(within(dialog).getByRole('radio', { name: /Daily digest/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('PUT', '/me/notifications')[0]?.data).toEqual({ events: ['upload.processed', 'delivery.rejected'], mode: 'daily', all_projects: false });
    expect(await screen.findByText('Notification settings saved')).toBeInTheDocument();
  });

  it('lets a SysUser follow every company, and says when nothing can be sent', async () => {
    const api = fakeApi({
      'GET /me/notifications': { status: 200, data: { data: [{ ...saved, email: null }] } },
      'PUT /me/notifications': { status: 422, data: { message: 'Only SysUsers and SysAdmins can follow every company’s projects' } },
    });
    const { user } = renderWithProviders(<NotificationsDialog open role={3} onClose={() => undefined} />);
    const dialog = await screen.findByRole('dialog', { name: 'Notifications' });
    expect(await within(dialog).findByText('Your account has no e-mail address, so nothing can be sent. Ask your administrator to add one.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('switch', { name: /Every company/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Invalid Data: Only SysUsers and SysAdmins can follow every company’s projects')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/me/notifications')[0]?.data).toMatchObject({ all_projects: true });
  });
});
