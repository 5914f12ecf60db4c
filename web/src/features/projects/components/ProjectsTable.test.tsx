import type { TListedProject, TProject } from '@portal/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aProject } from '../../../test/fixtures';
import { asListed } from '../../../test/fake-projects';
import { renderWithProviders } from '../../../test/render';
import { viewportWidth } from '../../../test/viewport';
import { ProjectsTable } from './ProjectsTable';
import { useProjectsQuery } from './use-projects-query';

const projects = Array.from({ length: 12 }, (_, i) => asListed(aProject({ id: i + 1, name: `Project ${i + 1}` })));

interface Handlers {
  onEdit: (project: TProject) => void;
  onDelete: (project: TProject) => void;
  onAdd: () => void;
}

/** The table with its query, paged here as the server would page it (the page's own tests ask the fake server). */
function Harness({ rows, handlers, showCompany = false }: { rows: TListedProject[]; handlers: Handlers; showCompany?: boolean }) {
  const query = useProjectsQuery();
  const { page, perPage } = query.request;
  return <ProjectsTable projects={rows.slice((page - 1) * perPage, page * perPage)} total={rows.length} query={query} showCompany={showCompany} {...handlers} />;
}

function renderTable(rows: TListedProject[] = projects, showCompany = false) {
  const handlers = { onEdit: vi.fn(), onDelete: vi.fn(), onAdd: vi.fn() };
  return { ...renderWithProviders(<Harness rows={rows} handlers={handlers} showCompany={showCompany} />), handlers };
}

const bodyRows = () => within(screen.getByRole('table', { name: 'Projects' })).getAllByRole('row').slice(1);

describe('ProjectsTable', () => {
  it('shows the spec columns in their order with the counts and newest upload between them, and links each name to its project', () => {
    renderTable();
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Files', 'Studies', 'Last upload', 'Date Created', 'Date Updated', 'Actions']);
    expect(screen.getByRole('link', { name: 'Project 1' })).toHaveAttribute('href', '/study/1');
  });

  it('adds a Company column for those who see every company, and keeps every column at a fixed width', () => {
    const { container } = renderTable([asListed(aProject({ id: 1, name: 'Knee' }), { companyname: 'Beta Clinics', files: 1, studies: 2, last_upload_at: '2026-03-03T10:00:00Z' })], true);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Company', 'Files', 'Studies', 'Last upload', 'Date Created', 'Date Updated', 'Actions']);
    const cells = within(bodyRows()[0]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(0, 5)).toEqual(['Knee', 'Beta Clinics', '1', '2', new Date('2026-03-03T10:00:00Z').toLocaleDateString()]);
    // Fixed layout: the name takes what the fixed columns leave, whatever the rows hold.
    expect(screen.getByRole('table', { name: 'Projects' })).toHaveStyle({ tableLayout: 'fixed' });
    const widths = [...container.querySelectorAll('col')].map((col) => col.style.width);
    expect(widths).toEqual(['', '170px', '90px', '100px', '160px', '170px', '170px', '120px']);
  });

  it("says 'No uploads' for a project without any, and sorts by a header clicked once up, twice down", async () => {
    const { user } = renderTable([asListed(aProject({ id: 1, name: 'Empty' }))]);
    expect(within(bodyRows()[0]!).getAllByRole('cell')[3]).toHaveTextContent('No uploads');
    const files = screen.getByRole('columnheader', { name: 'Files' });
    expect(files).not.toHaveAttribute('aria-sort');
    await user.click(within(files).getByRole('button', { name: 'Files' }));
    expect(files).toHaveAttribute('aria-sort', 'ascending');
    await user.click(within(files).getByRole('button', { name: 'Files' }));
    expect(files).toHaveAttribute('aria-sort', 'descending');
    expect(within(screen.getByRole('columnheader', { name: 'Actions' })).queryByRole('button')).not.toBeInTheDocument();
  });

  it('shows 5 rows by default and offers 5, 10 and 25', async () => {
    const { user } = renderTable();
    expect(bodyRows()).toHaveLength(5);
    await user.click(screen.getByRole('combobox', { name: /rows per page/i }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['5', '10', '25']);
  });

  it('goes back to the first page when the page size changes', async () => {
    const { user } = renderTable();
    await user.click(screen.getByRole('button', { name: /next page/i }));
    expect(screen.getByRole('link', { name: 'Project 6' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Project 1' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: /rows per page/i }));
    await user.click(screen.getByRole('option', { name: '10' }));

    expect(bodyRows()).toHaveLength(10);
    expect(screen.getByRole('link', { name: 'Project 1' })).toBeInTheDocument();
    expect(screen.getByText('1–10 of 12')).toBeInTheDocument();
  });

  it('hands the row to the edit and delete handlers', async () => {
    const { user, handlers } = renderTable();
    await user.click(screen.getByRole('button', { name: 'Edit project Project 2' }));
    await user.click(screen.getByRole('button', { name: 'Delete project Project 3' }));
    expect(handlers.onEdit).toHaveBeenCalledWith(projects[1]);
    expect(handlers.onDelete).toHaveBeenCalledWith(projects[2]);
  });

  it("shows 'N/A' for a missing date", () => {
    renderTable([asListed(aProject({ updated_at: '' }))]);
    expect(screen.getByRole('cell', { name: 'N/A' })).toBeInTheDocument();
  });

  it('shows the time of each date on hover, so rows changed on the same day can be told apart', async () => {
    const morning = '2026-03-02T08:15:00Z';
    const evening = '2026-03-02T19:40:00Z';
    const sameDay = [asListed(aProject({ id: 1, name: 'Morning', updated_at: morning })), asListed(aProject({ id: 2, name: 'Evening', updated_at: evening }))];
    const { user } = renderTable(sameDay);
    const updated = (row: number) => within(bodyRows()[row]!).getAllByRole('cell')[5]!;
    // The local date format stays in the cell, the same on both rows.
    expect(updated(0)).toHaveTextContent(new Date(morning).toLocaleDateString());
    expect(updated(1)).toHaveTextContent(new Date(morning).toLocaleDateString());

    await user.hover(within(updated(0)).getByText(new Date(morning).toLocaleDateString()));
    expect(await screen.findByRole('tooltip')).toHaveTextContent(new Date(morning).toLocaleString());
    await user.unhover(within(updated(0)).getByText(new Date(morning).toLocaleDateString()));
    await user.hover(within(updated(1)).getByText(new Date(evening).toLocaleDateString()));
    expect(await screen.findByText(new Date(evening).toLocaleString())).toBeInTheDocument();
  });

  it('on a phone shows each project as a card with its name, dates and both actions, and no table', async () => {
    viewportWidth(375);
    const { user, handlers } = renderTable();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const cards = within(screen.getByRole('list', { name: 'Projects' })).getAllByRole('listitem');
    expect(cards).toHaveLength(5);
    const first = within(screen.getByRole('listitem', { name: 'Project 1' }));
    expect(first.getByRole('link', { name: 'Project 1' })).toHaveAttribute('href', '/study/1');
    expect(first.getByText(/Date Created:/)).toHaveTextContent(`Date Created: ${new Date(projects[0]!.created_at).toLocaleDateString()}`);
    expect(first.getByText(/Date Updated:/)).toHaveTextContent(`Date Updated: ${new Date(projects[0]!.updated_at).toLocaleDateString()}`);
    expect(first.getByText('0 files, 0 studies')).toBeInTheDocument();
    expect(first.getByText(/Last upload:/)).toHaveTextContent('Last upload: No uploads');
    await user.click(first.getByRole('button', { name: 'Edit project Project 1' }));
    await user.click(first.getByRole('button', { name: 'Delete project Project 1' }));
    expect(handlers.onEdit).toHaveBeenCalledWith(projects[0]);
    expect(handlers.onDelete).toHaveBeenCalledWith(projects[0]);
    // The pager still pages the cards.
    await user.click(screen.getByRole('button', { name: /next page/i }));
    expect(screen.getByRole('listitem', { name: 'Project 6' })).toBeInTheDocument();
  });

  it('on a phone shows the empty state alone, with its one action', () => {
    viewportWidth(375);
    renderTable([]);
    const state = screen.getByRole('group', { name: 'No projects found' });
    expect(within(state).getAllByRole('button').map((b) => b.textContent)).toEqual(['Add Study']);
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('stays a table at 600 px, the sm breakpoint', () => {
    viewportWidth(600);
    renderTable();
    expect(screen.getByRole('table', { name: 'Projects' })).toBeInTheDocument();
  });
});
