import { ROLES, type TDeidentificationPolicy, type TRole } from '@portal/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { storeSession } from '../../../lib/storage';
import { SessionProvider } from '../../auth';
import { fakeApi, type FakeCall, type FakeReply } from '../../../test/fake-api';
import { filesRoutes } from '../../../test/fake-files';
import { aFile, aPolicy, aProject, aUser } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';
import ProjectDetailPage from './ProjectDetailPage';

const URL = '/study-petitions/1/deidentification';

function showProject(role: TRole, policy: TDeidentificationPolicy, put?: (call: FakeCall) => FakeReply) {
  storeSession('tok', aUser({ role }));
  let current = policy;
  const api = fakeApi({
    'GET /study-petitions/1': { status: 200, data: { data: [aProject({ id: 1, name: 'Brain MRI' })] } },
    ...filesRoutes([aFile({ id: 11, file: 'a.zip' })]),
    [`GET ${URL}`]: () => ({ status: 200, data: { data: [current] } }),
    [`PUT ${URL}`]: (call) => {
      if (put) return put(call);
      const body = call.data as Pick<TDeidentificationPolicy, 'profile' | 'options'>;
      current = { ...current, ...body, updated_at: '2026-11-28T12:00:00.000Z' };
      return { status: 200, data: { data: [current] } };
    },
  });
  const view = renderAt([{ path: '/study/:id', element: <SessionProvider><ProjectDetailPage /></SessionProvider> }], '/study/1');
  return { ...view, api };
}

const option = (dialog: HTMLElement, name: RegExp) => within(dialog).getByRole('checkbox', { name });

describe('the De-identification dialog', () => {
  it('is offered to a SysAdmin only', async () => {
    for (const role of [ROLES.User, ROLES.CompanyAdmin, ROLES.SysUser]) {
      const { unmount } = showProject(role, aPolicy());
      expect(await screen.findByText('De-identified: Basic profile')).toBeInTheDocument();
      expect(screen.queryByRole('button', { name: 'De-identification' })).not.toBeInTheDocument();
      unmount();
    }
  });

  it('shows the policy in force, with the options disabled while the profile is off', async () => {
    const { user } = showProject(ROLES.SysAdmin, aPolicy({ profile: 'off' }));
    await user.click(await screen.findByRole('button', { name: 'De-identification' }));
    const dialog = await screen.findByRole('dialog', { name: 'De-identification' });
    expect(within(dialog).getByRole('radio', { name: 'Off: patient identity is kept as sent' })).toBeChecked();
    const checkboxes = within(dialog).getAllByRole('checkbox');
    expect(checkboxes).toHaveLength(6);
    for (const box of checkboxes) expect(box).toBeDisabled();
    expect(within(dialog).getByText('Dates move back by an offset kept per patient, so the time between studies stays true')).toBeInTheDocument();
    expect(within(dialog).getByText(/Table E\.1-1 of DICOM PS3\.15 2024b/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('radio', { name: /^Basic/ }));
    for (const box of checkboxes) expect(box).toBeEnabled();
  });

  it('saves the profile and the ticked options in the standard’s order, and the line follows', async () => {
    const { user, api } = showProject(ROLES.SysAdmin, aPolicy({ profile: 'off' }));
    expect(await screen.findByText('Patient identity is kept as sent')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'De-identification' }));
    const dialog = await screen.findByRole('dialog', { name: 'De-identification' });
    await user.click(within(dialog).getByRole('radio', { name: /^Basic/ }));
    await user.click(option(dialog, /^Retain UIDs/));
    await user.click(option(dialog, /^Retain Longitudinal Temporal Information with Modified Dates/));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('De-identification policy saved')).toBeInTheDocument();
    expect(api.callsTo('PUT', URL).map((call) => call.data)).toEqual([{ profile: 'basic', options: ['retainLongitudinalModifiedDates', 'retainUIDs'] }]);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByText('De-identified: Basic profile, dates shifted, UIDs kept')).toBeInTheDocument();
    expect(screen.queryByText('Patient identity is kept as sent')).not.toBeInTheDocument();
  });

  it('sends no options with the profile off, whatever stays ticked', async () => {
    const { user, api } = showProject(ROLES.SysAdmin, aPolicy({ options: ['cleanDescriptors'] }));
    await user.click(await screen.findByRole('button', { name: 'De-identification' }));
    const dialog = await screen.findByRole('dialog', { name: 'De-identification' });
    expect(option(dialog, /^Clean Descriptors/)).toBeChecked();
    await user.click(within(dialog).getByRole('radio', { name: /^Off/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Patient identity is kept as sent')).toBeInTheDocument();
    expect(api.callsTo('PUT', URL).map((call) => call.data)).toEqual([{ profile: 'off', options: [] }]);
  });

  it('shows the server’s refusal in its words and stays open to correct it', async () => {
    const refusal = 'options.0: \'keepNames\' is not an option; the options are retainLongitudinalModifiedDates, retainPatientCharacteristics, retainDeviceIdentity, retainSafePrivate, cleanDescriptors, retainUIDs';
    const { user } = showProject(ROLES.SysAdmin, aPolicy(), () => ({ status: 400, data: { message: refusal } }));
    await user.click(await screen.findByRole('button', { name: 'De-identification' }));
    const dialog = await screen.findByRole('dialog', { name: 'De-identification' });
    await user.click(option(dialog, /^Retain Patient Characteristics/));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(`Bad Request: ${refusal}`)).toBeInTheDocument();
    expect(option(dialog, /^Retain Patient Characteristics/)).toBeChecked();
    expect(screen.getByText('De-identified: Basic profile')).toBeInTheDocument();
  });

  it('says so in words when the server refuses the role', async () => {
    const { user } = showProject(ROLES.SysAdmin, aPolicy(), () => ({ status: 403, data: { message: 'You do not have permission to perform this action' } }));
    await user.click(await screen.findByRole('button', { name: 'De-identification' }));
    const dialog = await screen.findByRole('dialog', { name: 'De-identification' });
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Access Denied: You do not have permission to perform this action')).toBeInTheDocument();
  });

  it('closes on Cancel without saving', async () => {
    const { user, api } = showProject(ROLES.SysAdmin, aPolicy());
    await user.click(await screen.findByRole('button', { name: 'De-identification' }));
    const dialog = await screen.findByRole('dialog', { name: 'De-identification' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo('PUT', URL)).toEqual([]);
  });
});
