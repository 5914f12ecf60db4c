import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { aFile, aProject } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import { ProjectCard } from './ProjectCard';
import { ProjectsTree } from './ProjectsTree';

describe('ProjectsTree (not selectable, kept ready)', () => {
  it('loads a project’s files only when it is expanded', async () => {
    const api = fakeApi({ 'GET /study-petitions-files': { status: 200, data: { data: [aFile({ file: 'scan.zip' })] } } });
    const { user } = renderWithProviders(<ProjectsTree projects={[aProject({ id: 1, name: 'Brain MRI' })]} />);
    expect(api.calls).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Brain MRI' }));
    expect(await within(screen.getByRole('list', { name: 'Files of Brain MRI' })).findByText('scan.zip')).toBeInTheDocument();
    expect(api.calls).toHaveLength(1);
  });

  it("says 'Error loading study files' when the files cannot be read", async () => {
    fakeApi({ 'GET /study-petitions-files': { status: 500 } });
    const { user } = renderWithProviders(<ProjectsTree projects={[aProject({ id: 1, name: 'Brain MRI' })]} />);
    await user.click(screen.getByRole('button', { name: 'Brain MRI' }));
    expect(await screen.findByText('Error loading study files')).toBeInTheDocument();
  });
});

describe('ProjectCard', () => {
  it('shows the study with its description and a link to its details', () => {
    renderWithProviders(<ProjectCard project={aProject({ id: 4, name: 'Knee CT' })} />);
    expect(screen.getByRole('heading', { name: 'Knee CT' })).toBeInTheDocument();
    expect(screen.getByText('Complete neurological study with high-resolution images')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See details' })).toHaveAttribute('href', '/study/4');
  });
});
