import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { UNREADABLE_ANSWER } from '../../../lib/api-answer';
import { fakeApi } from '../../../test/fake-api';
import { answerProjects } from '../../../test/fake-projects';
import { aProject } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import ProjectsPage from './ProjectsPage';

describe('ProjectsPage', () => {
  it('shows the empty states when there are no projects', async () => {
    fakeApi({ 'GET /study-petitions': (call) => answerProjects([], call) });
    renderWithProviders(<ProjectsPage />);
    expect(screen.getByRole('heading', { name: 'Projects' })).toBeInTheDocument();
    expect(screen.getByText('Manage and organize your projects')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'No projects found' })).toBeInTheDocument();
    expect(screen.getByText('No studies found')).toBeInTheDocument();
    expect(screen.getByText('Create your first project to start organizing your projects.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add Study' })).toBeInTheDocument();
  });

  it('lays the empty texts out as one state with one action inside it', async () => {
    fakeApi({ 'GET /study-petitions': (call) => answerProjects([], call) });
    const { user } = renderWithProviders(<ProjectsPage />);
    const state = await screen.findByRole('group', { name: 'No projects found' });
    expect(within(state).getByText('No studies found')).toBeInTheDocument();
    expect(within(state).getByText('Create your first project to start organizing your projects.')).toBeInTheDocument();
    expect(within(state).getAllByRole('button').map((b) => b.textContent)).toEqual(['Add Study']);
    // One empty state on the page: the title is not repeated outside it.
    expect(screen.getAllByText(/^No (projects|studies) found$/)).toHaveLength(2);
    expect(screen.getAllByRole('heading', { name: 'No projects found' })).toHaveLength(1);
    await user.click(within(state).getByRole('button', { name: 'Add Study' }));
    expect(screen.getByRole('dialog', { name: 'Create Project' })).toBeInTheDocument();
  });

  it('does not call a list that failed to load empty, and offers to load it again', async () => {
    let fail = true;
    fakeApi({
      'GET /study-petitions': (call) => (fail ? { status: 500 } : answerProjects([aProject({ id: 1, name: 'Brain MRI' })], call)),
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    expect(await screen.findByText('Internal Server Error: A server error has occurred. Please try again later.')).toBeInTheDocument();
    expect(screen.queryByText('No projects found')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add Study' })).not.toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('link', { name: 'Brain MRI' })).toBeInTheDocument();
  });

  it('says in words that a list of another shape cannot be read, instead of showing it, and loads it again', async () => {
    let readable = false;
    fakeApi({
      'GET /study-petitions': (call) =>
        readable ? answerProjects([aProject({ id: 1, name: 'Brain MRI' })], call) : { status: 200, data: { data: [{ id: 1, name: 'Brain MRI' }], page: { page: 1, per_page: 5, total: 1 } } },
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    expect(await screen.findByText(`Unexpected Error: ${UNREADABLE_ANSWER}`)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Brain MRI' })).not.toBeInTheDocument();
    expect(screen.queryByText('No projects found')).not.toBeInTheDocument();
    readable = true;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('link', { name: 'Brain MRI' })).toBeInTheDocument();
    expect(screen.queryByText(/Unexpected Error/)).not.toBeInTheDocument();
  });

  it("creates a project as valid and 'Pendant', then lists it", async () => {
    let listed = [aProject({ id: 1, name: 'Brain MRI' })];
    const api = fakeApi({
      'GET /study-petitions': (call) => answerProjects(listed, call),
      'POST /study-petitions': (call) => {
        listed = [...listed, aProject({ id: 2, name: (call.data as { name: string }).name })];
        return { status: 201, data: { data: [listed[1]] } };
      },
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    await screen.findByRole('link', { name: 'Brain MRI' });
    await user.click(screen.getByRole('button', { name: 'Add Project' }));
    await user.type(screen.getByRole('textbox', { name: 'Project Name' }), ' Knee CT ');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('link', { name: 'Knee CT' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/study-petitions')[0]?.data).toEqual({ name: 'Knee CT', valid: true, status: 'Pendant' });
  });

  it('renames a project by sending it back with the new name', async () => {
    const project = aProject({ id: 5, name: 'Old' });
    const api = fakeApi({
      'GET /study-petitions': (call) => answerProjects([project], call),
      'PUT /study-petitions/5': { status: 200, data: { data: [{ ...project, name: 'New' }] } },
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    await user.click(await screen.findByRole('button', { name: 'Edit project Old' }));
    const name = screen.getByRole('textbox', { name: 'Project Name' });
    await user.clear(name);
    await user.type(name, 'New');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.callsTo('PUT', '/study-petitions/5')).toHaveLength(1));
    expect(api.callsTo('PUT', '/study-petitions/5')[0]?.data).toEqual({ ...project, name: 'New' });
  });

  it('deletes after confirmation and says so', async () => {
    let listed = [aProject({ id: 1, name: 'Brain MRI' })];
    const api = fakeApi({
      'GET /study-petitions': (call) => answerProjects(listed, call),
      'PUT /study-petitions-delete/1': () => {
        listed = [];
        return { status: 200, data: { data: [] } };
      },
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    await user.click(await screen.findByRole('button', { name: 'Delete project Brain MRI' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm Delete' });
    expect(within(dialog).getByText('Are you sure you want to delete this project?')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Project deleted successfully')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/study-petitions-delete/1')).toHaveLength(1);
    expect(await screen.findByRole('heading', { name: 'No projects found' })).toBeInTheDocument();
  });

  it("reads 'Deleting...' while the deletion runs", async () => {
    let finish: (reply: { status: number; data: unknown }) => void = () => undefined;
    fakeApi({
      'GET /study-petitions': (call) => answerProjects([aProject({ id: 1, name: 'Brain MRI' })], call),
      'PUT /study-petitions-delete/1': () => new Promise((resolve) => (finish = resolve)),
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    await user.click(await screen.findByRole('button', { name: 'Delete project Brain MRI' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Confirm Delete' })).getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm Delete' });
    expect(await within(dialog).findByRole('button', { name: 'Deleting...' })).toBeDisabled();
    // The state shows once, in the dialog it came from: no second overlay stacked above it.
    expect(within(dialog).getByRole('status')).toHaveTextContent('Deleting project...');
    expect(screen.getAllByRole('status', { hidden: true })).toHaveLength(1);
    expect(screen.getAllByText('Deleting project...', { exact: true })).toHaveLength(1);
    finish({ status: 200, data: { data: [] } });
    expect(await screen.findByText('Project deleted successfully')).toBeInTheDocument();
  });

  it("tells the user when a project cannot be deleted", async () => {
    fakeApi({
      'GET /study-petitions': (call) => answerProjects([aProject({ id: 1, name: 'Brain MRI' })], call),
      'PUT /study-petitions-delete/1': { status: 500 },
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    await user.click(await screen.findByRole('button', { name: 'Delete project Brain MRI' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Confirm Delete' })).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Failed to delete project')).toBeInTheDocument();
  });

  it("shows a failed creation as 'message: details'", async () => {
    fakeApi({
      'GET /study-petitions': (call) => answerProjects([], call),
      'POST /study-petitions': { status: 422, data: { message: 'The name of the study is required' } },
    });
    const { user } = renderWithProviders(<ProjectsPage />);
    await user.click(await screen.findByRole('button', { name: 'Add Study' }));
    await user.type(screen.getByRole('textbox', { name: 'Project Name' }), 'x');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Invalid Data: The name of the study is required')).toBeInTheDocument();
  });
});
