import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, type FakeCall, type FakeReply } from '../../../test/fake-api';
import { renderWithProviders } from '../../../test/render';
import { viewportWidth } from '../../../test/viewport';
import { UNREADABLE_ANSWER } from '../../../lib/api-answer';
import { aStudy, studiesPage } from '../testing/studies-fixtures';
import { StudiesView } from './StudiesView';

const PATH = 'GET /study-petitions/1/studies';

const peter = aStudy();
const archibald = aStudy({
  study_instance_uid: '1.3.6.1.4.1.5962.1.1.0.0.0.1196527414.5534.0.1',
  patient_name: 'Doe, Archibald',
  patient_id: '77654033',
  study_description: 'XR C Spine Comp Min 4 Views',
  modalities: ['CR', 'OT'],
  series: [
    { series_instance_uid: '1.2.9.1', modality: 'CR', series_description: null, instances: 1 },
    { series_instance_uid: '1.2.9.2', modality: 'OT', series_description: 'Report', instances: 2 },
  ],
  instances: 3,
  sources: [{ file_id: 12, file: 'first.zip' }],
});
const unnamed = aStudy({
  study_instance_uid: '1.2.3.4.5',
  patient_name: null,
  patient_id: null,
  study_date: null,
  study_description: null,
  modalities: [],
  series: [],
  instances: 0,
  sources: [1, 2, 3, 4, 5].map((i) => ({ file_id: i, file: `part-${i}.zip` })),
});

/** The page's part: it tells the view when the last upload has finished processing. */
function ProcessingUntilClicked() {
  const [processing, setProcessing] = useState(true);
  return (
    <>
      <button type="button" onClick={() => setProcessing(false)}>
        Processing ends
      </button>
      <StudiesView projectId={1} processing={processing} onUpload={vi.fn()} />
    </>
  );
}

function serve(reply: FakeReply | ((call: FakeCall) => FakeReply), more: Record<string, FakeReply> = {}) {
  const api = fakeApi({ [PATH]: reply, ...more });
  const onUpload = vi.fn();
  const view = renderWithProviders(<StudiesView projectId={1} processing={false} onUpload={onUpload} />);
  return { ...view, api, onUpload, asked: () => api.callsTo('GET', '/study-petitions/1/studies').map((c) => c.params) };
}

const bodyRows = () =>
  within(screen.getByRole('table', { name: 'Studies' }))
    .getAllByRole('row')
    .slice(1)
    .filter((row) => row.querySelector('button[aria-expanded]'));

describe('StudiesView', () => {
  it('shows each study once with its patient, date, description, modalities, counts and sources', async () => {
    const { asked } = serve({ status: 200, data: studiesPage([peter, archibald, unnamed]) });
    await screen.findByText('Doe, Peter');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Show series',
      'Patient Name',
      'Patient ID',
      'Study Date',
      'Description',
      'Modalities',
      'Series',
      'Instances',
      'Sources',
      'Viewer',
    ]);
    const [first, second, third] = bodyRows();
    expect(within(first!).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '',
      'Doe, Peter',
      '98890234',
      '2001-01-01',
      'Chest CT',
      'CT',
      '1',
      '5',
      'first.zipsecond.zip',
      '',
    ]);
    // 'Open in viewer' opens the study in OHIF, in a new tab, naming the project and the study only.
    const open = within(first!).getByRole('link', { name: /^Open Doe, Peter · .* in viewer$/ });
    expect(open).toHaveAttribute('href', `/viewer/viewer?project=1&StudyInstanceUIDs=${encodeURIComponent(peter.study_instance_uid)}`);
    expect(open).toHaveAttribute('target', '_blank');
    expect(open).toHaveAttribute('rel', 'noopener');
    expect(within(second!).getByText('CR, OT')).toBeInTheDocument();
    // Missing values read N/A; a study in many uploads names three and counts the rest.
    expect(within(third!).getAllByText('N/A')).toHaveLength(5);
    expect(within(third!).getByText('and 2 more')).toBeInTheDocument();
    expect(screen.getByText('(3 studies)')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Study Date' })).toHaveAttribute('aria-sort', 'descending');
    // The server's own order, made explicit: newest study first; the spec's page size of 5.
    expect(asked()).toEqual([{ sort: 'study_date', order: 'desc', page: 1, per_page: 5 }]);
  });

  it('opens a study to its series and closes it again', async () => {
    const thumbnail = (series: string) => `GET /study-petitions/1/studies/${archibald.study_instance_uid}/series/${series}/thumbnail`;
    const { user } = serve(
      { status: 200, data: studiesPage([peter, archibald]) },
      {
        [thumbnail('1.2.9.1')]: { status: 202, data: new Blob([JSON.stringify({ message: 'Still being made' })]), headers: { 'retry-after': '5' } },
        [thumbnail('1.2.9.2')]: { status: 409, data: new Blob([JSON.stringify({ message: 'This series holds no pictures (its instances carry no pixel data, e.g. a report or a plan).' })]) },
      },
    );
    const open = await screen.findByRole('button', { name: 'Show series of Doe, Archibald · XR C Spine Comp Min 4 Views · 2001-01-01' });
    expect(open).toHaveAttribute('aria-expanded', 'false');
    await user.click(open);
    const series = await screen.findByRole('table', { name: 'Series of Doe, Archibald · XR C Spine Comp Min 4 Views · 2001-01-01' });
    // Each series with its thumbnail: a neutral placeholder while it is made, the reason when there is none.
    await within(series).findByText('This series holds no pictures (its instances carry no pixel data, e.g. a report or a plan).');
    expect(within(series).getAllByRole('row').map((r) => r.textContent)).toEqual([
      'PictureModalitySeries descriptionInstances',
      'CRN/A1',
      'This series holds no pictures (its instances carry no pixel data, e.g. a report or a plan).OTReport2',
    ]);
    expect(within(series).getByRole('img', { name: 'Thumbnail of CR · Untitled series is being made' })).toBeVisible();
    expect(screen.getByText('Study Instance UID 1.3.6.1.4.1.5962.1.1.0.0.0.1196527414.5534.0.1')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /^Hide series of Doe, Archibald/ }));
    await waitFor(() => expect(screen.queryByRole('table', { name: /^Series of Doe, Archibald/ })).not.toBeInTheDocument());
  });

  it('sorts by a column on the server: ascending first, then descending, back to the first page', async () => {
    const { user, asked } = serve({ status: 200, data: studiesPage([peter, archibald], { page: 1, per_page: 5, total: 12 }) });
    await screen.findByText('Doe, Peter');
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await waitFor(() => expect(asked().at(-1)).toMatchObject({ page: 2 }));
    await user.click(screen.getByRole('button', { name: 'Patient Name' }));
    await waitFor(() => expect(asked().at(-1)).toEqual({ sort: 'patient_name', order: 'asc', page: 1, per_page: 5 }));
    expect(screen.getByRole('columnheader', { name: /Patient Name/ })).toHaveAttribute('aria-sort', 'ascending');
    await user.click(screen.getByRole('button', { name: /Patient Name/ }));
    await waitFor(() => expect(asked().at(-1)).toEqual({ sort: 'patient_name', order: 'desc', page: 1, per_page: 5 }));
    await user.click(screen.getByRole('button', { name: 'Instances' }));
    await waitFor(() => expect(asked().at(-1)).toEqual({ sort: 'instances', order: 'asc', page: 1, per_page: 5 }));
    // Columns the server cannot sort by offer no sorting.
    expect(within(screen.getByRole('columnheader', { name: 'Modalities' })).queryByRole('button')).not.toBeInTheDocument();
  });

  it('searches on the server once typing pauses, from the first page', async () => {
    const { user, asked } = serve((call) => {
      const q = (call.params as { q?: string }).q;
      if (q === 'nobody') return { status: 200, data: studiesPage([]) };
      return { status: 200, data: studiesPage(q ? [archibald] : [peter, archibald], { page: 1, per_page: 5, total: q ? 1 : 12 }) };
    });
    await screen.findByText('Doe, Peter');
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search studies' }), 'spine');
    await waitFor(() => expect(screen.queryByText('Doe, Peter')).not.toBeInTheDocument());
    // One request for the word, not one per letter.
    expect(asked().filter((p) => (p as { q?: string }).q !== undefined)).toEqual([{ q: 'spine', sort: 'study_date', order: 'desc', page: 1, per_page: 5 }]);
    expect(screen.getByText('(1 study)')).toBeInTheDocument();

    await user.clear(screen.getByRole('searchbox', { name: 'Search studies' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search studies' }), 'nobody');
    expect(await screen.findByText('No studies match "nobody"')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Upload Files' })).not.toBeInTheDocument();
  });

  it('pages with the spec sizes 5, 10 and 25', async () => {
    const { user, asked } = serve({ status: 200, data: studiesPage([peter], { page: 1, per_page: 5, total: 30 }) });
    await screen.findByText('Doe, Peter');
    expect(screen.getByText('1–5 of 30')).toBeInTheDocument();
    await user.click(screen.getByRole('combobox', { name: /Rows per page/ }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['5', '10', '25']);
    await user.click(screen.getByRole('option', { name: '25' }));
    await waitFor(() => expect(asked().at(-1)).toEqual({ sort: 'study_date', order: 'desc', page: 1, per_page: 25 }));
  });

  it('without studies, says so and offers the upload', async () => {
    const { user, onUpload } = serve({ status: 200, data: studiesPage([]) });
    expect(await screen.findByText('No DICOM studies yet')).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Studies' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Upload Files' }));
    expect(onUpload).toHaveBeenCalledOnce();
  });

  it('shows a failed read in the words of spec §8, with Retry', async () => {
    let fail = true;
    const { user } = serve(() => (fail ? { status: 500 } : { status: 200, data: studiesPage([peter]) }));
    expect(await screen.findByText('Internal Server Error: A server error has occurred. Please try again later.')).toBeInTheDocument();
    expect(screen.queryByText('No DICOM studies yet')).not.toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Doe, Peter')).toBeInTheDocument();
    expect(screen.queryByText(/Internal Server Error/)).not.toBeInTheDocument();
  });

  it('refuses an answer of another shape in words', async () => {
    serve({ status: 200, data: { data: [{ study_instance_uid: 5 }] } });
    expect(await screen.findByText(`Unexpected Error: ${UNREADABLE_ANSWER}`)).toBeInTheDocument();
  });

  it('reads the studies again while uploads are processing, and stops after', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const api = fakeApi({ [PATH]: { status: 200, data: studiesPage([peter]) } });
      const asked = () => api.callsTo('GET', '/study-petitions/1/studies');
      renderWithProviders(<ProcessingUntilClicked />);
      await screen.findByText('Doe, Peter');
      await vi.advanceTimersByTimeAsync(3100);
      await waitFor(() => expect(asked().length).toBeGreaterThanOrEqual(2));
      fireEvent.click(screen.getByRole('button', { name: 'Processing ends' }));
      // Once more when processing ends (its last studies), then no more.
      await waitFor(() => expect(asked().length).toBeGreaterThanOrEqual(3));
      const settled = asked().length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(asked()).toHaveLength(settled);
    } finally {
      vi.useRealTimers();
    }
  });

  it('on a phone shows cards that open to their series, and sorts from a list', async () => {
    viewportWidth(390);
    const { user, asked } = serve({ status: 200, data: studiesPage([peter, archibald]) });
    const cards = await screen.findByRole('list', { name: 'Studies' });
    expect(screen.queryByRole('table', { name: 'Studies' })).not.toBeInTheDocument();
    const card = within(cards).getByRole('listitem', { name: 'Doe, Peter · Chest CT · 2001-01-01' });
    expect(within(card).getByText('Patient ID: 98890234')).toBeInTheDocument();
    expect(within(card).getByText('2001-01-01 · CT')).toBeInTheDocument();
    expect(within(card).getByText('Chest CT')).toBeInTheDocument();
    expect(within(card).getByText('1 series · 5 instances')).toBeInTheDocument();
    expect(within(card).getByText('second.zip')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Show series of Doe, Peter · Chest CT · 2001-01-01' }));
    expect(await within(card).findByText('SmartScore - Gated 0.5 sec')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: 'Sort by' }));
    await user.click(screen.getByRole('option', { name: 'Patient name, A to Z' }));
    await waitFor(() => expect(asked().at(-1)).toEqual({ sort: 'patient_name', order: 'asc', page: 1, per_page: 5 }));
  });
});
