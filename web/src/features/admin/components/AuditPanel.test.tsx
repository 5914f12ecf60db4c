import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { viewportWidth } from '../../../test/viewport';
import { aCompany, anAuditRow, companyAdmin, page, renderAdmin, sysAdmin } from '../testing/admin-fixtures';

const noRequests = { 'GET /admin/password-requests': { status: 200, data: page([]) } };
const rows = [
  anAuditRow(),
  anAuditRow({ seq: 2, action: 'login.failure', actor_id: null, actor_name: null, object_type: null, object_id: null, details: null, ip: null, user_agent: null }),
];

afterEach(() => vi.restoreAllMocks());

describe('the audit screen', () => {
  it('shows each row in words with its actor, object, client and details', async () => {
    fakeApi({ 'GET /admin/audit': { status: 200, data: page(rows) }, ...noRequests });
    renderAdmin(companyAdmin, '/admin/audit');
    const table = await screen.findByRole('table', { name: 'Audit trail' });
    const [first, second] = within(table).getAllByRole('row').slice(1);
    expect(first).toHaveTextContent('User disabled');
    expect(first).toHaveTextContent('user.disabled');
    expect(first).toHaveTextContent('ada');
    expect(first).toHaveTextContent('user/5');
    expect(first).toHaveTextContent('192.0.2.10');
    expect(first).toHaveTextContent('username: uma');
    expect(second).toHaveTextContent('Sign-in refused');
    expect(second).toHaveTextContent('nobody signed in');
    expect(screen.queryByRole('columnheader', { name: 'Company' })).not.toBeInTheDocument();
  });

  it('sends the filters once typing pauses and starts again on the first page', async () => {
    const api = fakeApi({ 'GET /admin/audit': { status: 200, data: page(rows, 12) }, ...noRequests });
    const { user } = renderAdmin(companyAdmin, '/admin/audit');
    await screen.findByText('(12 rows)');
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await waitFor(() => expect(api.callsTo('GET', '/admin/audit').at(-1)?.params).toMatchObject({ page: 2 }));

    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-01' } });
    await user.type(screen.getByRole('textbox', { name: 'Actor' }), 'ada');
    await user.click(screen.getByRole('combobox', { name: 'Action' }));
    await user.click(screen.getByRole('option', { name: 'Any sign-in event' }));
    await waitFor(() =>
      expect(api.callsTo('GET', '/admin/audit').at(-1)?.params).toEqual({
        from: new Date(2026, 2, 1).toISOString(),
        actor: 'ada',
        action: 'login.',
        page: 1,
        per_page: 5,
      }),
    );
    await user.click(screen.getByRole('button', { name: 'Clear Filters' }));
    await waitFor(() => expect(api.callsTo('GET', '/admin/audit').at(-1)?.params).toEqual({ page: 1, per_page: 5 }));
  });

  it('downloads the filtered rows as CSV through the client, with the token in a header', async () => {
    const createObjectURL = vi.fn(() => 'blob:audit');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    localStorage.setItem('token', 'tok-admin');
    const api = fakeApi({
      'GET /admin/audit': (call) =>
        (call.params as { format?: string }).format === 'csv'
          ? { status: 200, data: new Blob(['seq,at\n']), headers: { 'content-disposition': 'attachment; filename="audit.csv"' } }
          : { status: 200, data: page(rows) },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/audit');
    await screen.findByRole('table', { name: 'Audit trail' });
    await user.type(screen.getByRole('textbox', { name: 'Object' }), 'user/5');
    await waitFor(() => expect(api.callsTo('GET', '/admin/audit').at(-1)?.params).toMatchObject({ object: 'user/5' }));
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));
    expect(await screen.findByText('File downloaded successfully')).toBeInTheDocument();
    const csvCall = api.callsTo('GET', '/admin/audit').find((c) => (c.params as { format?: string }).format === 'csv');
    expect(csvCall?.params).toEqual({ object: 'user/5', format: 'csv' });
    expect(csvCall?.config.responseType).toBe('blob');
    expect(csvCall?.config.headers.Authorization).toBe('Bearer tok-admin');
    expect(saved).toEqual(['audit.csv']);
  });

  it('says why a CSV could not be made, from the JSON inside the failed blob', async () => {
    fakeApi({
      'GET /admin/audit': (call) =>
        (call.params as { format?: string }).format === 'csv'
          ? { status: 400, data: new Blob([JSON.stringify({ message: 'from: must be a date (2026-01-31) or an ISO 8601 time' })]) }
          : { status: 200, data: page(rows) },
      ...noRequests,
    });
    const { user } = renderAdmin(companyAdmin, '/admin/audit');
    await screen.findByRole('table', { name: 'Audit trail' });
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));
    expect(await screen.findByText('Bad Request: from: must be a date (2026-01-31) or an ISO 8601 time')).toBeInTheDocument();
  });

  it('names each row’s company for a SysAdmin, and shows rows as cards on a phone', async () => {
    viewportWidth(390);
    fakeApi({
      'GET /admin/audit': { status: 200, data: page(rows) },
      'GET /admin/companies': { status: 200, data: page([aCompany()]) },
      ...noRequests,
    });
    renderAdmin(sysAdmin, '/admin/audit');
    const list = await screen.findByRole('list', { name: 'Audit trail' });
    const [first] = within(list).getAllByRole('listitem');
    await waitFor(() => expect(first).toHaveTextContent('By ada · Acme Imaging · from 192.0.2.10'));
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});
