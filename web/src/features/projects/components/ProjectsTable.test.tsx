import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aProject } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
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
});
