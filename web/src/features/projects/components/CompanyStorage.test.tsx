import { ROLES } from '@portal/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { storeSession } from '../../../lib/storage';
import { SessionProvider } from '../../auth';
import { fakeApi, type FakeCall } from '../../../test/fake-api';
import { answerProjects } from '../../../test/fake-projects';
import { aUser } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import ProjectsPage from './ProjectsPage';

const GB = 1024 ** 3;
const companyAnswer = (used: number, quota: number | null) => ({
  status: 200,
  data: { data: [{ id: 7, companyname: 'Acme Imaging', created_at: '2026-01-01', updated_at: '2026-01-01', quota_bytes: quota, used_bytes: used }] },
});

describe('the company storage bar on the projects screen', () => {
  it('shows a company user what the company stores of its allowance, as a bar', async () => {
    storeSession('tok', aUser({ role: ROLES.User }));
    fakeApi({ 'GET /study-petitions': (call: FakeCall) => answerProjects([], call), 'GET /company/7': companyAnswer(1.5 * GB, 5 * GB) });
    renderWithProviders(<SessionProvider><ProjectsPage /></SessionProvider>);
    const section = await screen.findByRole('region', { name: 'Company storage' });
    expect(within(section).getByRole('heading', { name: 'Company storage' })).toBeInTheDocument();
    const bar = within(section).getByRole('progressbar', { name: 'Storage used' });
    expect(bar).toHaveAttribute('aria-valuenow', '30');
    expect(bar).toHaveAttribute('aria-valuetext', '1.50 GB of 5.00 GB used');
    expect(within(section).getByText('1.50 GB of 5.00 GB used (30%)')).toBeInTheDocument();
    // The spec's texts of the screen stay as they were.
    expect(screen.getByRole('heading', { name: 'Projects' })).toBeInTheDocument();
    expect(screen.getByText('Manage and organize your projects')).toBeInTheDocument();
  });

  it('says a full allowance plainly, and shows no bar where there is no limit', async () => {
    storeSession('tok', aUser({ role: ROLES.CompanyAdmin }));
    fakeApi({ 'GET /study-petitions': (call: FakeCall) => answerProjects([], call), 'GET /company/7': companyAnswer(6 * GB, 5 * GB) });
    const { unmount } = renderWithProviders(<SessionProvider><ProjectsPage /></SessionProvider>);
    expect(await screen.findByText('6.00 GB of 5.00 GB used (100%)')).toBeInTheDocument();
    unmount();

    fakeApi({ 'GET /study-petitions': (call: FakeCall) => answerProjects([], call), 'GET /company/7': companyAnswer(2 * 1024 ** 2, null) });
    renderWithProviders(<SessionProvider><ProjectsPage /></SessionProvider>);
    expect(await screen.findByText('2.00 MB used (no limit)')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Storage used' })).not.toBeInTheDocument();
  });

  it('is not shown to SysUser and SysAdmin, who see every company’s projects', async () => {
    for (const role of [ROLES.SysUser, ROLES.SysAdmin]) {
      storeSession('tok', aUser({ role }));
      const api = fakeApi({ 'GET /study-petitions': (call: FakeCall) => answerProjects([], call), 'GET /company/7': companyAnswer(GB, 5 * GB) });
      const { unmount } = renderWithProviders(<SessionProvider><ProjectsPage /></SessionProvider>);
      expect(await screen.findByRole('heading', { name: 'No projects found' })).toBeInTheDocument();
      expect(screen.queryByRole('region', { name: 'Company storage' })).not.toBeInTheDocument();
      expect(api.callsTo('GET', '/company/7')).toEqual([]);
      unmount();
    }
  });
});
