import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aProject } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import { viewportWidth } from '../../../test/viewport';
import { ProjectsTable } from './ProjectsTable';

const projects = Array.from({ length: 12 }, (_, i) => aProject({ id: i + 1, name: `Project ${i + 1}` }));

function renderTable() {
  const handlers = { onEdit: vi.fn(), onDelete: vi.fn(), onAdd: vi.fn() };
  return { ...renderWithProviders(<ProjectsTable projects={projects} {...handlers} />), handlers };
}

const bodyRows = () => within(screen.getByRole('table', { name: 'Projects' })).getAllByRole('row').slice(1);

describe('ProjectsTable', () => {
  it('shows the spec columns and links each name to its project', () => {
    renderTable();
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Date Created', 'Date Updated', 'Actions']);
    expect(screen.getByRole('link', { name: 'Project 1' })).toHaveAttribute('href', '/study/1');
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
    renderWithProviders(<ProjectsTable projects={[aProject({ updated_at: '' })]} onEdit={vi.fn()} onDelete={vi.fn()} onAdd={vi.fn()} />);
    expect(screen.getByRole('cell', { name: 'N/A' })).toBeInTheDocument();
  });

  it('shows the time of each date on hover, so rows changed on the same day can be told apart', async () => {
    const morning = '2026-03-02T08:15:00Z';
    const evening = '2026-03-02T19:40:00Z';
    const sameDay = [aProject({ id: 1, name: 'Morning', updated_at: morning }), aProject({ id: 2, name: 'Evening', updated_at: evening })];
    const { user } = renderWithProviders(<ProjectsTable projects={sameDay} onEdit={vi.fn()} onDelete={vi.fn()} onAdd={vi.fn()} />);
    const updated = (row: number) => within(bodyRows()[row]!).getAllByRole('cell')[2]!;
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
    renderWithProviders(<ProjectsTable projects={[]} onEdit={vi.fn()} onDelete={vi.fn()} onAdd={vi.fn()} />);
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
