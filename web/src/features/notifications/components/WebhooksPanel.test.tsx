import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderWithProviders } from '../../../test/render';
import { WebhooksPanel } from './WebhooksPanel';

const hook = { id: 4, company_id: 7, url: 'https://hooks.acme.example/portal', events: ['delivery.processed'], created_at: '2026-03-01T10:00:00Z' };
const delivery = {
  id: 9,
  webhook_id: 4,
  event: 'delivery.processed',
  message_id: 'msg_1',
  status: 'retrying',
  attempts: 2,
  last_status_code: 500,
  last_error: 'The receiver answered 500',
  created_at: '2026-03-01T10:00:00Z',
  updated_at: '2026-03-01T10:01:00Z',
  delivered_at: null,
};

describe('the webhooks panel', () => {
  it('lists endpoints, shows one’s log and deletes one', async () => {
    const api = fakeApi({
      'GET /admin/webhooks': { status: 200, data: { data: [hook] } },
      'POST /admin/webhooks': (call) => ({ status: 201, data: { data: [{ ...hook, id: 5, ...(call.data as object), company_id: 7, secret: 'whsec_c2VjcmV0' }] } }),
      'GET /admin/webhooks/4/deliveries': { status: 200, data: { data: [delivery], page: { page: 1, per_page: 5, total: 1 } } },
      'DELETE /admin/webhooks/4': { status: 204 },
    });
    const { user } = renderWithProviders(<WebhooksPanel sysAdmin={false} companies={[]} companyName={() => ''} />);
    const table = await screen.findByRole('table', { name: 'Webhooks' });
    expect(within(table).getByText('https://hooks.acme.example/portal')).toBeInTheDocument();
    expect(within(table).getByText('Delivery processed')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Deliveries log of https://hooks.acme.example/portal' }));
    const log = await screen.findByRole('dialog', { name: 'Deliveries log' });
    expect(await within(log).findByText('The receiver answered 500')).toBeInTheDocument();
    expect(within(log).getByText('Retrying')).toBeInTheDocument();
    await user.click(within(log).getByRole('button', { name: 'Close' }));

    await user.click(screen.getByRole('button', { name: 'Delete webhook https://hooks.acme.example/portal' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete webhook?' })).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(api.callsTo('DELETE', '/admin/webhooks/4')).toHaveLength(1));
    expect(await screen.findByText('Webhook deleted')).toBeInTheDocument();
  });

  it('creates an endpoint and shows its secret once', async () => {
    const api = fakeApi({
      'GET /admin/webhooks': { status: 200, data: { data: [hook] } },
      'POST /admin/webhooks': (call) => ({ status: 201, data: { data: [{ ...hook, id: 5, ...(call.data as object), company_id: 7, secret: 'whsec_c2VjcmV0' }] } }),
    });
    const { user } = renderWithProviders(<WebhooksPanel sysAdmin={false} companies={[]} companyName={() => ''} />);
    await screen.findByRole('table', { name: 'Webhooks' });
    await user.click(screen.getByRole('button', { name: 'Add Webhook' }));
    const form = await screen.findByRole('dialog', { name: 'Add Webhook' });
    await user.type(within(form).getByRole('textbox', { name: /Address/ }), 'https://hooks.acme.example/second');
    await user.click(within(form).getByRole('checkbox', { name: 'Uploads: Rejected' }));
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    const created = await screen.findByRole('dialog', { name: 'Webhook created' });
    expect(within(created).getByRole('textbox', { name: 'Signing secret' })).toHaveValue('whsec_c2VjcmV0');
    expect(api.callsTo('POST', '/admin/webhooks')[0]?.data).toEqual({ url: 'https://hooks.acme.example/second', events: ['delivery.completed', 'delivery.processed', 'upload.rejected'] });
    await user.click(within(created).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('shows the server’s refusal of an address in words', async () => {
    fakeApi({
      'GET /admin/webhooks': { status: 200, data: { data: [] } },
      'POST /admin/webhooks': { status: 422, data: { message: 'The address 10.1.2.3 is on a loopback, private or link-local network; the portal sends webhooks only to public addresses' } },
    });
    const { user } = renderWithProviders(<WebhooksPanel sysAdmin companies={[{ id: 7, companyname: 'Acme Imaging' }]} companyName={() => 'Acme Imaging'} />);
    expect(await screen.findByText(/No webhooks yet/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add Webhook' }));
    const form = await screen.findByRole('dialog', { name: 'Add Webhook' });
    await user.type(within(form).getByRole('textbox', { name: /Address/ }), 'https://10.1.2.3/hook');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('The address 10.1.2.3 is on a loopback, private or link-local network');
  });
});
