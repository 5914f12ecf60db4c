import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { answerFiles } from '../../../test/fake-files';
import { aFile, aProject } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';
import ProjectDetailPage from './ProjectDetailPage';

/** The studies view is a lazily loaded chunk: on a busy machine its first import takes a while. */
const LAZY = { timeout: 10_000 };

// Written out here: another feature's test fixtures are its internals (web/README.md, the import rule).
const study = {
  study_instance_uid: '1.2.3',
  patient_name: 'Doe, Peter',
  patient_id: '98890234',
  study_date: '20010101',
  study_description: null,
  modalities: ['CT'],
  series: [{ series_instance_uid: '1.2.3.4', modality: 'CT', series_description: null, instances: 5 }],
  instances: 5,
  sources: [{ file_id: 11, file: 'first.zip' }],
};

function serve(path: string) {
  const api = fakeApi({
    'GET /study-petitions/1': { status: 200, data: { data: [aProject({ id: 1, name: 'Brain MRI' })] } },
    'GET /study-petitions-files': (call) => answerFiles([aFile({ id: 11, file: 'first.zip' }), aFile({ id: 12, file: 'second.zip' })], call),
    'GET /study-petitions/1/studies': { status: 200, data: { data: [study], page: { page: 1, per_page: 5, total: 1 } } },
  });
  const view = renderAt([{ path: '/study/:id', element: <ProjectDetailPage /> }, { path: '/home', element: <p>home</p> }], path);
  return { ...view, api, studiesAsked: () => api.callsTo('GET', '/study-petitions/1/studies').length };
}

describe('ProjectDetailPage views', () => {
  it('opens on the files, as the spec draws them, and reads no studies until asked', async () => {
    const { studiesAsked } = serve('/study/1');
    const table = await screen.findByRole('table', { name: 'Project files' });
    expect(screen.getByRole('heading', { name: 'Project Files' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Project Files' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Studies' })).toHaveAttribute('aria-selected', 'false');
    expect(screen.getByRole('tabpanel', { name: 'Project Files' })).toContainElement(table);
    expect(studiesAsked()).toBe(0);
  });

  it('switches to the studies, keeps the choice in the address, and the files come back as they were left', async () => {
    const { user, router } = serve('/study/1');
    await user.click(await screen.findByRole('checkbox', { name: 'Select first.zip' }));
    await user.click(screen.getByRole('tab', { name: 'Studies' }));
    const panel = screen.getByRole('tabpanel', { name: 'Studies' });
    expect(await within(panel).findByText('Doe, Peter', {}, LAZY)).toBeInTheDocument();
    expect(within(panel).getByText('first.zip')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?view=studies');
    // The files' panel and its actions are out of sight, not gone: the banner stays.
    expect(screen.queryByRole('heading', { name: 'Project Files' })).not.toBeInTheDocument();
    expect(screen.getByText('2 files found')).toBeInTheDocument();

    // Back returns to the files, with the selection made before.
    await router.navigate(-1);
    expect(await screen.findByRole('heading', { name: 'Project Files' })).toBeInTheDocument();
    expect(router.state.location.search).toBe('');
    expect(screen.getByText('(1 selected)')).toBeInTheDocument();
  });

  it('opens on the studies when the address says so (a reload, a shared link)', async () => {
    serve('/study/1?view=studies');
    expect(await screen.findByText('Doe, Peter', {}, LAZY)).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Studies' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.queryByRole('table', { name: 'Project files' })).not.toBeInTheDocument();
  });

  it('reads any other view in the address as the files', async () => {
    const { studiesAsked } = serve('/study/1?view=nonsense');
    expect(await screen.findByRole('heading', { name: 'Project Files' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Project Files' })).toHaveAttribute('aria-selected', 'true'));
    expect(studiesAsked()).toBe(0);
  });
});
