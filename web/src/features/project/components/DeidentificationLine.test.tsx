import { ROLES, type TDeidentificationPolicy, type TRole } from '@portal/contract';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { storeSession } from '../../../lib/storage';
import { SessionProvider } from '../../auth';
import { fakeApi, type FakeReply } from '../../../test/fake-api';
import { filesRoutes } from '../../../test/fake-files';
import { aFile, aPolicy, aProject, aUser } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';
import ProjectDetailPage from './ProjectDetailPage';

function showProject(role: TRole, policy: FakeReply, path = '/study/1') {
  storeSession('tok', aUser({ role }));
  const api = fakeApi({
    'GET /study-petitions/1': { status: 200, data: { data: [aProject({ id: 1, name: 'Brain MRI' })] } },
    ...filesRoutes([aFile({ id: 11, file: 'a.zip' })]),
    'GET /study-petitions/1/studies': { status: 200, data: { data: [], page: { page: 1, per_page: 10, total: 0 } } },
    'GET /study-petitions/1/deidentification': policy,
  });
  const view = renderAt([{ path: '/study/:id', element: <SessionProvider><ProjectDetailPage /></SessionProvider> }], path);
  return { ...view, api };
}

const answer = (policy: TDeidentificationPolicy): FakeReply => ({ status: 200, data: { data: [policy] } });

describe('the de-identification line at the top of the project', () => {
  it('says the basic profile to every role, above both the files and the studies', async () => {
    for (const role of [ROLES.User, ROLES.CompanyAdmin, ROLES.SysUser, ROLES.SysAdmin]) {
      const { unmount } = showProject(role, answer(aPolicy()), '/study/1?view=studies');
      expect(await screen.findByRole('note')).toHaveTextContent(/^De-identified: Basic profile/);
      expect(await screen.findByRole('heading', { name: 'Studies' })).toBeInTheDocument();
      // Only a SysAdmin may change it; everyone else reads the line.
      expect(screen.queryAllByRole('button', { name: 'De-identification' })).toHaveLength(role === ROLES.SysAdmin ? 1 : 0);
      unmount();
    }
    showProject(ROLES.User, answer(aPolicy()));
    expect(await screen.findByText('De-identified: Basic profile')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Project Files' })).toBeInTheDocument();
  });

  it('appends the options in short words, in the standard’s order', async () => {
    showProject(ROLES.SysUser, answer(aPolicy({ options: ['retainLongitudinalModifiedDates'] })));
    expect(await screen.findByText('De-identified: Basic profile, dates shifted')).toBeInTheDocument();
  });

  it('names every option when all are kept', async () => {
    const options = ['retainLongitudinalModifiedDates', 'retainPatientCharacteristics', 'retainDeviceIdentity', 'retainSafePrivate', 'cleanDescriptors', 'retainUIDs'] as const;
    showProject(ROLES.User, answer(aPolicy({ options: [...options] })));
    expect(
      await screen.findByText(
        'De-identified: Basic profile, dates shifted, patient characteristics kept, device identity kept, safe private attributes kept, descriptors cleaned, UIDs kept',
      ),
    ).toBeInTheDocument();
  });

  it('warns SysUser and SysAdmin that identity is kept when the profile is off', async () => {
    for (const role of [ROLES.SysUser, ROLES.SysAdmin]) {
      const { unmount } = showProject(role, answer(aPolicy({ profile: 'off' })));
      const line = await screen.findByRole('note');
      expect(line).toHaveTextContent(/^Patient identity is kept as sent/);
      expect(line.className).toMatch(/Warning/);
      unmount();
    }
  });

  it('shows the sending company nothing when the profile is off, the page as before', async () => {
    for (const role of [ROLES.User, ROLES.CompanyAdmin]) {
      const { unmount, api } = showProject(role, answer(aPolicy({ profile: 'off' })));
      expect(await screen.findByText('a.zip')).toBeInTheDocument();
      await screen.findByRole('heading', { name: 'Brain MRI' });
      expect(api.callsTo('GET', '/study-petitions/1/deidentification')).toHaveLength(1);
      expect(screen.queryByText('Patient identity is kept as sent')).not.toBeInTheDocument();
      expect(screen.queryByRole('note')).not.toBeInTheDocument();
      unmount();
    }
  });

  it('shows no line, and the page still works, when the policy cannot be read', async () => {
    showProject(ROLES.SysUser, { status: 500, data: { message: 'boom' } });
    expect(await screen.findByText('a.zip')).toBeInTheDocument();
    expect(screen.getByText('1 files found')).toBeInTheDocument();
    expect(screen.queryByText(/De-identified|kept as sent/)).not.toBeInTheDocument();
  });
});
